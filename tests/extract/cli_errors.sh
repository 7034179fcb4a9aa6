#!/usr/bin/env bash
# Bad input to `celeris extract`: each case must exit non-zero with a one-line error message
# naming the problem, and must leave no catalog file behind.
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
"$bin" simulate image --size 64 --stars 5 -o good.fits >/dev/null || { echo "cannot simulate"; exit 1; }
printf 'not a FITS file\n' > text.fits
head -c 3000 good.fits > truncated.fits
printf 'CONV NORM\n1 2 1\n' > ok.conv

expect_error() {  # name, expected substring, command...
  local name=$1 want=$2
  shift 2
  rm -f out.cat
  "$@" -CATALOG_NAME out.cat >/dev/null 2>err.txt
  local rc=$?
  local lines
  lines=$(grep -c . err.txt)
  if [ $rc -eq 0 ]; then echo "FAIL $name: exit code 0"; fail=1; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL $name: $lines lines of error:"; cat err.txt; fail=1; fi
  if ! grep -qi -- "$want" err.txt; then echo "FAIL $name: message lacks '$want':"; cat err.txt; fail=1; fi
  if ls out.cat* >/dev/null 2>&1; then echo "FAIL $name: output file left behind"; fail=1; fi
  [ $rc -ne 0 ] && echo "ok   $name: $(cat err.txt)"
}

expect_error missing-file "no such file" "$bin" extract nothere.fits
expect_error not-fits "not a FITS file" "$bin" extract text.fits
expect_error truncated "truncated.fits" "$bin" extract truncated.fits
expect_error wrong-hdu "HDU" "$bin" extract "good.fits[3]"
expect_error bad-value "DETECT_THRESH" "$bin" extract good.fits -DETECT_THRESH abc
expect_error out-of-range "DEBLEND_MINCONT" "$bin" extract good.fits -DEBLEND_MINCONT 5
expect_error missing-conv "FILTER_NAME" "$bin" extract good.fits -FILTER_NAME nothere.conv
expect_error missing-param "PARAMETERS_NAME" "$bin" extract good.fits -PARAMETERS_NAME nothere.param
expect_error bad-type "CATALOG_TYPE" "$bin" extract good.fits -CATALOG_TYPE XML
expect_error bad-gpu-memory "--gpu-memory" "$bin" extract good.fits --gpu-memory 8X
expect_error zero-gpu-memory "--gpu-memory" "$bin" extract good.fits --gpu-memory 0
python3 - <<'PY'
import struct
# A 1-D image, a 3-D cube, an all-NaN image and a 0 x 0 image, written by hand.
def card(k, v): return (f"{k:<8}= {v:>20}").ljust(80)
def write(name, naxes, data=b"", bitpix=-32):
    cards = [card("SIMPLE", "T"), card("BITPIX", str(bitpix)), card("NAXIS", str(len(naxes)))]
    cards += [card(f"NAXIS{i+1}", str(n)) for i, n in enumerate(naxes)]
    cards.append("END".ljust(80))
    h = "".join(cards).encode()
    h += b" " * (-len(h) % 2880)
    data += b"\0" * (-len(data) % 2880)
    open(name, "wb").write(h + data)
write("oned.fits", [10], struct.pack(">10f", *range(10)))
write("cube.fits", [8, 8, 3], struct.pack(">192f", *([1.0] * 192)))
write("allnan.fits", [16, 16], struct.pack(">256f", *([float("nan")] * 256)))
write("empty.fits", [0, 0])
write("nowcs.fits", [32, 32], struct.pack(">1024f", *[float((i * 7919) % 13) for i in range(1024)]))
PY
expect_error one-d "2-D" "$bin" extract oned.fits
expect_error cube "cube" "$bin" extract cube.fits
expect_error all-nan "masked" "$bin" extract allnan.fits
expect_error empty "no image data\|empty" "$bin" extract empty.fits
# Nothing silently ignored (issue 19): what SExtractor would do and celeris cannot is an error
# naming it.
printf 'NUMBER\nX_IMAGE\nFLUX_PSF\nSPREAD_MODEL\n' > missing.param
expect_error sextractor-param "FLUX_PSF, SPREAD_MODEL" "$bin" extract good.fits -PARAMETERS_NAME missing.param
# The *_J2000 angles need an equatorial J2000 frame (measure_world_shape.hpp): other frames
# are refused, not mis-computed. (Latitude-first frames are computed as SExtractor does:
# extract.parity.*_latitude_first.)
python3 - <<'PY'
h = open("good.fits", "rb").read()
open("galactic.fits", "wb").write(h.replace(b"'RA---TAN'", b"'GLON-TAN'")
                                   .replace(b"'DEC--TAN'", b"'GLAT-TAN'"))
PY
printf 'NUMBER\nTHETAWIN_J2000\n' > thetawin.param
expect_error galactic-thetawin "THETAWIN_J2000: only equatorial J2000" "$bin" extract galactic.fits -PARAMETERS_NAME thetawin.param
# The *_B1950 columns convert from J2000 (sextractor/fk5_to_fk4.hpp): equatorial J2000 only.
printf 'NUMBER\nALPHA_B1950\n' > b1950.param
expect_error galactic-b1950 "ALPHA_B1950: only equatorial J2000" "$bin" extract galactic.fits -PARAMETERS_NAME b1950.param
printf 'NUMBER\nVIGNET(5)\n' > vignet.param
expect_error vignet-size "VIGNET(w,h)" "$bin" extract good.fits -PARAMETERS_NAME vignet.param
printf 'NUMBER\nVIGNET_SHIFT\n' > vignet_shift.param
expect_error vignet-shift-size "VIGNET_SHIFT(w,h)" "$bin" extract good.fits -PARAMETERS_NAME vignet_shift.param
printf 'NUMBER\nFLUX_PETRO\n' > petro.param
expect_error petro-params "PHOT_PETROPARAMS" "$bin" extract good.fits -PARAMETERS_NAME petro.param -PHOT_PETROPARAMS 2.0
expect_error weight-image-missing "none.fits" "$bin" extract good.fits -WEIGHT_TYPE MAP_WEIGHT -WEIGHT_IMAGE none.fits
"$bin" simulate image --size 32 --stars 2 -o small.fits >/dev/null || { echo "cannot simulate"; exit 1; }
expect_error weight-image-size "same size" "$bin" extract good.fits -WEIGHT_TYPE MAP_RMS -WEIGHT_IMAGE small.fits
# INTERP_TYPE VAR_ONLY with one map: source-extractor 2.25 itself stops ("WEIGHT_IMAGE missing").
expect_error weight-interp-var-only "VAR_ONLY" "$bin" extract good.fits -WEIGHT_TYPE MAP_WEIGHT -WEIGHT_IMAGE good.fits -INTERP_TYPE VAR_ONLY
# DETECT_TYPE PHOTO: the Petrosian and growth-curve columns (their photographic mode is not
# reproduced yet), and the GPU's measurement.
printf 'NUMBER\nFLUX_PETRO\n' > petro_photo.param
expect_error photo-petro "DETECT_TYPE PHOTO" "$bin" extract good.fits -PARAMETERS_NAME petro_photo.param -DETECT_TYPE PHOTO
printf 'NUMBER\nFLUX_GROWTH(4)\n' > growth_photo.param
expect_error photo-growth "DETECT_TYPE PHOTO" "$bin" extract good.fits -PARAMETERS_NAME growth_photo.param -DETECT_TYPE PHOTO
expect_error weight-type-dual "WEIGHT_TYPE" "$bin" extract good.fits -WEIGHT_TYPE NONE,MAP_RMS
expect_error thresh-types "THRESH_TYPE" "$bin" extract good.fits -THRESH_TYPE RELATIVE,ABSOLUTE,RELATIVE
expect_error maxarea "DETECT_MAXAREA" "$bin" extract good.fits -DETECT_MAXAREA 100
expect_error write-xml "WRITE_XML" "$bin" extract good.fits -WRITE_XML Y
expect_error fits-unsigned "FITS_UNSIGNED" "$bin" extract good.fits -FITS_UNSIGNED Y
expect_error dual-image-size "same size" "$bin" extract good.fits,small.fits
expect_error dual-image-three "two images" "$bin" extract good.fits,good.fits,good.fits
expect_error dual-image-local "dual-image" "$bin" extract good.fits,good.fits -BACKPHOTO_TYPE LOCAL
# Weight maps in a stream: each frame's map by its {stem}; a frame whose map is missing is
# reported by name, leaves no catalog, and the exit status is 1 (the others are written).
cp good.fits second.fits
cp good.fits good.w.fits
"$bin" extract good.fits second.fits -WEIGHT_TYPE MAP_WEIGHT -WEIGHT_IMAGE '{stem}.w.fits' \
  -CATALOG_NAME '{stem}.wcat' --progress none >/dev/null 2>err.txt
rc=$?
if [ $rc -eq 0 ]; then echo "FAIL weights-stream: exit code 0"; fail=1; fi
if ! grep -q "second.w.fits" err.txt; then echo "FAIL weights-stream: no error names second.w.fits:"; cat err.txt; fail=1; fi
if [ ! -s good.wcat ] || [ -e second.wcat ]; then echo "FAIL weights-stream: catalogs"; ls; fail=1; fi
[ $rc -ne 0 ] && echo "ok   weights-stream: $(grep -m1 second.w.fits err.txt)"
expect_error dual-image-stream "one detect.fits,measure.fits pair" "$bin" extract good.fits,good.fits small.fits
expect_error dual-image-missing "no such file" "$bin" extract good.fits,nothere.fits
python3 - <<'PY'
# good.fits followed by a second image HDU: a multi-extension file of two images.
data = open("good.fits", "rb").read()
cards, pos = [], 0
while True:
    card = data[pos:pos + 80].decode()
    pos += 80
    if card.startswith("END "):
        break
    cards.append(card)
body = data[(pos + 2879) // 2880 * 2880:]
naxis = int(next(c for c in cards if c.startswith("NAXIS ")).split("=")[1].split("/")[0])
ext = ["XTENSION= 'IMAGE   '".ljust(80)] + cards[1:3 + naxis]
ext += ["PCOUNT  =                    0".ljust(80), "GCOUNT  =                    1".ljust(80)]
ext += [c for c in cards[3 + naxis:] if not c.startswith("EXTEND")] + ["END".ljust(80)]
head = "".join(ext).encode()
head += b" " * (-len(head) % 2880)
open("mef.fits", "wb").write(data + head + body)
PY
# A multi-extension file is extracted whole (tests/extract/mef_parity.py compares it with
# source-extractor); its weight and flag maps must have an image at each of its image HDUs (a
# one-image map: source-extractor weighs the first extension with it and stops at the second),
# and are named without an HDU.
expect_error mef-weight-one-image "no image at HDU 2" "$bin" extract mef.fits -WEIGHT_TYPE MAP_WEIGHT \
  -WEIGHT_IMAGE good.fits
expect_error mef-weight-hdu "without an HDU" "$bin" extract mef.fits -WEIGHT_TYPE MAP_WEIGHT \
  -WEIGHT_IMAGE "mef.fits[1]"
printf 'NUMBER\nIMAFLAGS_ISO\n' > flags.param
expect_error mef-flag-one-image "FLAG_IMAGE good.fits: no image at HDU 2" "$bin" extract mef.fits \
  -PARAMETERS_NAME flags.param -FLAG_IMAGE good.fits
expect_error mef-dual-one-image "measurement image good.fits: no image at HDU 2" "$bin" extract \
  mef.fits,good.fits
# A weight map whose second extension has another size: the run stops there, and neither the
# catalog nor the check image (written extension by extension) is left behind.
"$bin" simulate image --size 32 --stars 1 -o small32.fits >/dev/null
python3 - <<'PY'
def hdu(name, primary):
    data = open(name, "rb").read()
    cards, pos = [], 0
    while True:
        card = data[pos:pos + 80].decode()
        pos += 80
        if card.startswith("END "):
            break
        cards.append(card)
    if primary:
        return data
    body = data[(pos + 2879) // 2880 * 2880:]
    naxis = int(next(c for c in cards if c.startswith("NAXIS ")).split("=")[1].split("/")[0])
    ext = ["XTENSION= 'IMAGE   '".ljust(80)] + cards[1:3 + naxis]
    ext += ["PCOUNT  =                    0".ljust(80), "GCOUNT  =                    1".ljust(80)]
    ext += [c for c in cards[3 + naxis:] if not c.startswith("EXTEND")] + ["END".ljust(80)]
    head = "".join(ext).encode()
    return head + b" " * (-len(head) % 2880) + body
open("mixed.fits", "wb").write(hdu("good.fits", True) + hdu("small32.fits", False))
PY
expect_error mef-check-over-weight "CHECKIMAGE_NAME" "$bin" extract mef.fits -WEIGHT_TYPE MAP_WEIGHT \
  -WEIGHT_IMAGE mixed.fits -CHECKIMAGE_TYPE SEGMENTATION -CHECKIMAGE_NAME mixed.fits
rm -f mefseg.fits
expect_error mef-weight-size "mixed.fits\[1\] is 32x32" "$bin" extract mef.fits -WEIGHT_TYPE MAP_WEIGHT \
  -WEIGHT_IMAGE mixed.fits -CHECKIMAGE_TYPE SEGMENTATION -CHECKIMAGE_NAME mefseg.fits
if ls mefseg.fits* .mefseg* >/dev/null 2>&1; then
  echo "FAIL mef-weight-size: check image left behind"; ls -a; fail=1
fi
"$bin" extract mef.fits -FILTER_NAME ok.conv -CATALOG_NAME mefw.cat -WEIGHT_TYPE MAP_WEIGHT \
  -WEIGHT_IMAGE mef.fits -CHECKIMAGE_TYPE SEGMENTATION -CHECKIMAGE_NAME mefseg.fits >/dev/null 2>err.txt
if [ $? -ne 0 ] || [ ! -s mefw.cat ] || [ ! -s mefseg.fits ]; then
  echo "FAIL mef with a weight map and a check image: should succeed"; cat err.txt; fail=1
else
  echo "ok   mef-weight-check: runs"
fi
"$bin" extract mef.fits -FILTER_NAME ok.conv -CATALOG_NAME mef.cat >/dev/null 2>err.txt
if [ $? -ne 0 ] || [ ! -s mef.cat ]; then
  echo "FAIL mef: should succeed"; cat err.txt; fail=1
else
  echo "ok   mef: runs"
fi
"$bin" extract "mef.fits[1]" -FILTER_NAME ok.conv -CATALOG_NAME mef1.cat >/dev/null 2>err.txt
if [ $? -ne 0 ] || [ ! -s mef1.cat ]; then
  echo "FAIL mef with a named HDU: should succeed"; cat err.txt; fail=1
else
  echo "ok   mef-named-hdu: runs"
fi
cp good.fits head.fits
printf 'GAIN    =                  4.0\nEND\n' > head.head
expect_error external-header "head.head" "$bin" extract head.fits
# Flag maps: the size must match, values must be small integers, one map per vector element.
printf 'NUMBER\nIMAFLAGS_ISO\n' > flags.param
printf 'NUMBER\nIMAFLAGS_ISO(2)\n' > flags2.param
"$bin" simulate image --size 32 --stars 1 -o small.fits >/dev/null
expect_error flag-size "small.fits" "$bin" extract good.fits -PARAMETERS_NAME flags.param -FLAG_IMAGE small.fits
expect_error flag-values "not an integer" "$bin" extract good.fits -PARAMETERS_NAME flags.param -FLAG_IMAGE good.fits
expect_error flag-count "FLAG_IMAGE names 1" "$bin" extract good.fits -PARAMETERS_NAME flags2.param -FLAG_IMAGE good.fits
expect_error flag-missing "flag.fits" "$bin" extract good.fits -PARAMETERS_NAME flags.param
expect_error flag-type "FLAG_TYPE" "$bin" extract good.fits -FLAG_TYPE XOR
# CLASS_STAR: the network file must be one. PIXEL_SCALE 0 (the scale from the WCS) is refused
# where SExtractor's WCS code moves the image centre by a random step before taking the scale
# there: a GLON-CAR frame whose pole it finds ill-conditioned (stages/measure_pixel_scale.hpp).
printf 'NUMBER\nCLASS_STAR\n' > cs.param
expect_error nnw-missing "STARNNW_NAME" "$bin" extract good.fits -PARAMETERS_NAME cs.param -STARNNW_NAME none.nnw
expect_error nnw-bad "not a neural-network" "$bin" extract good.fits -PARAMETERS_NAME cs.param -STARNNW_NAME ok.conv
python3 - <<'PY'
def card(key, value):
    return (key.ljust(8) + "= " + value).ljust(80).encode()
new = {b"CTYPE1  ": card("CTYPE1", "'GLON-CAR'"), b"CTYPE2  ": card("CTYPE2", "'GLAT-CAR'"),
       b"CRVAL2  ": card("CRVAL2", "0.000301939107299"), b"RADESYS ": card("LONPOLEA", "180.0")}
data = bytearray(open("good.fits", "rb").read())
for k in range(0, 2880, 80):
    if bytes(data[k:k + 8]) in new:
        data[k:k + 80] = new[bytes(data[k:k + 8])]
open("pole.fits", "wb").write(data)
PY
printf 'NUMBER\nMU_MAX\n' > mu.param
expect_error pixel-scale-0-centre "PIXEL_SCALE" "$bin" extract pole.fits -PARAMETERS_NAME mu.param -PIXEL_SCALE 0
# ASSOC (stages/assoc_list.cpp): a list SExtractor would misread is refused, naming the line.
printf 'NUMBER\nNUMBER_ASSOC\nVECTOR_ASSOC(2)\n' > assoc.param
printf '# id x y mag\n1 10.5 12.0 20.1\n2 30.0 40.0 21.0\n' > ok.list
printf '1 10.5 12.0 20.1\n2 30.0 40.0\n' > short.list
printf '1 10.5 12.0 20.1\n2 30.0 nan 21.0\n' > nan.list
printf '1 10.5 12.0 20.1\n2 30.0 4O.0 21.0\n' > letter.list
printf '1 10.5 12.0 20.1\n\t2 30.0 40.0 21.0\n' > tab.list
printf '1 10.5 12.0 20.1\n   \n' > blank.list
expect_error assoc-missing "none.list" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME none.list
expect_error assoc-short "short.list line 2: 3 columns" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME short.list
expect_error assoc-nan "nan.list line 2, column 3" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME nan.list
expect_error assoc-not-number "not a number: '4O.0'" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME letter.list
expect_error assoc-tab "starts with a tab" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME tab.list
expect_error assoc-blank "blank but not empty" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME blank.list
expect_error assoc-params-range "ASSOC_PARAMS #3" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOC_PARAMS 2,3,7
expect_error assoc-data-range "ASSOC_DATA: column 9" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOC_DATA 1,9
expect_error assoc-data-twice "ASSOC_DATA: column 2" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOC_DATA 2,2
expect_error assoc-params-twice "ASSOC_PARAMS: column 2" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOC_PARAMS 2,2
expect_error assoc-type "ASSOC_TYPE" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOC_TYPE MEDIAN
expect_error assoc-radius "ASSOC_RADIUS" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOC_RADIUS 0
expect_error assoc-segmentation "ASSOCSELEC_TYPE" "$bin" extract good.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -CHECKIMAGE_TYPE SEGMENTATION -CHECKIMAGE_NAME seg.fits
expect_error assoc-world-no-wcs "needs a WCS" "$bin" extract nowcs.fits -PARAMETERS_NAME assoc.param -ASSOC_NAME ok.list -ASSOCCOORD_TYPE WORLD
# DETECT_TYPE PHOTO's MAG_GAMMA: SExtractor's range.
expect_error mag-gamma "MAG_GAMMA" "$bin" extract good.fits -DETECT_TYPE PHOTO -MAG_GAMMA 0
# DGEO_TYPE PIXEL (stages/dgeo_map.hpp): the map must be a cube of x and y shift planes of the
# image's size (source-extractor: "Incompatible differential geometry map size", "Error while
# reading" a 2-D map), finite, at each HDU a multi-extension image reads (--device cuda:
# dgeo_test.cpp).
python3 - <<'PY'
import struct
def card(k, v): return (f"{k:<8}= {v:>20}").ljust(80)
def hdu(naxes, values, first=True):
    cards = [card("SIMPLE", "T") if first else "XTENSION= 'IMAGE   '".ljust(80),
             card("BITPIX", "-32"), card("NAXIS", str(len(naxes)))]
    cards += [card(f"NAXIS{i+1}", str(n)) for i, n in enumerate(naxes)]
    if not first:
        cards += [card("PCOUNT", "0"), card("GCOUNT", "1")]
    h = "".join(cards + ["END".ljust(80)]).encode()
    h += b" " * (-len(h) % 2880)
    data = struct.pack(f">{len(values)}f", *values)
    return h + data + b"\0" * (-len(data) % 2880)
def write(name, naxes, values):
    open(name, "wb").write(hdu(naxes, values))
# A map of two HDUs whose second does not fit mef.fits's second extension.
open("dgeo_mef_bad.fits", "wb").write(hdu([64, 64, 2], [0.25] * 8192) +
                                      hdu([32, 32, 2], [0.25] * 2048, first=False))
write("dgeo64.fits", [64, 64, 2], [0.25] * 8192)
write("dgeo32.fits", [32, 32, 2], [0.25] * 2048)
write("dgeo2d.fits", [64, 64], [0.25] * 4096)
write("dgeonan.fits", [64, 64, 2], [0.25] * 5000 + [float("nan")] + [0.25] * 3191)
PY
expect_error dgeo-missing "DGEO_IMAGE nothere.fits" "$bin" extract good.fits -DGEO_TYPE PIXEL -DGEO_IMAGE nothere.fits
expect_error dgeo-size "same size" "$bin" extract good.fits -DGEO_TYPE PIXEL -DGEO_IMAGE dgeo32.fits
expect_error dgeo-2d "at least 2 planes" "$bin" extract good.fits -DGEO_TYPE PIXEL -DGEO_IMAGE dgeo2d.fits
expect_error dgeo-nan "finite" "$bin" extract good.fits -DGEO_TYPE PIXEL -DGEO_IMAGE dgeonan.fits
expect_error dgeo-type "DGEO_TYPE: expected one of NONE, PIXEL" "$bin" extract good.fits -DGEO_TYPE POLY -DGEO_IMAGE dgeo64.fits
expect_error dgeo-mef-hdu "dgeo_mef_bad.fits\[1\] is 32x32" "$bin" extract mef.fits -DGEO_TYPE PIXEL -DGEO_IMAGE dgeo_mef_bad.fits
printf 'NUMBER\nVIGNET_DGEOX(5)\n' > dgeovig.param
expect_error dgeo-vignet-size "VIGNET_DGEOX(w,h)" "$bin" extract good.fits -PARAMETERS_NAME dgeovig.param
# Keys that act only with a refused feature are accepted (SExtractor ignores them too then).
"$bin" extract good.fits -FLAG_IMAGE none.fits -STARNNW_NAME none.nnw -WEIGHT_IMAGE none.fits \
  -ASSOC_NAME none.list -FILTER_NAME ok.conv -VERBOSE_TYPE QUIET -CATALOG_NAME inert.cat \
  >/dev/null 2>err.txt
if [ $? -ne 0 ] || [ -s err.txt ] || [ ! -s inert.cat ]; then
  echo "FAIL inert keys: should succeed silently"; cat err.txt; fail=1
else
  echo "ok   inert-keys: accepted"
fi
# Unknown catalog parameters warn on stderr (as SExtractor); the summary goes to stderr too, so
# stdout stays empty.
printf 'NUMBER\nX_IMAGE\nNOT_A_PARAM\n' > unknown.param
"$bin" extract good.fits -PARAMETERS_NAME unknown.param -FILTER_NAME ok.conv \
  -CATALOG_NAME unknown.cat >out.txt 2>err.txt
if [ $? -ne 0 ] || ! grep -q "warning: .*NOT_A_PARAM" err.txt || [ -s out.txt ] ||
   ! grep -q "objects" err.txt || [ ! -s unknown.cat ]; then
  echo "FAIL unknown parameter: should warn on stderr, summary on stderr, stdout empty"
  cat out.txt err.txt; fail=1
else
  echo "ok   unknown-param: warning and summary on stderr"
fi
# Unknown keys only warn; the run succeeds and writes the catalog.
"$bin" extract good.fits -NOT_A_KEY 1 -FILTER_NAME ok.conv -CATALOG_NAME warn.cat >/dev/null 2>err.txt
if [ $? -ne 0 ] || ! grep -q "NOT_A_KEY" err.txt || [ ! -s warn.cat ]; then
  echo "FAIL unknown key: should warn and succeed"; cat err.txt; fail=1
else
  echo "ok   unknown-key: warning only"
fi
# --gpu-memory on the CPU: said to be ignored; the run succeeds.
"$bin" extract good.fits --gpu-memory 2G -CATALOG_NAME cpu.cat >/dev/null 2>err.txt
if [ $? -ne 0 ] || ! grep -q "warning: --gpu-memory is for --device cuda" err.txt || [ ! -s cpu.cat ]; then
  echo "FAIL --gpu-memory on the CPU: should warn and succeed"; cat err.txt; fail=1
else
  echo "ok   gpu-memory-on-cpu: warning only"
fi
exit $fail
