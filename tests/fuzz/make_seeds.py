#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/): small valid
inputs of each format, so that the fuzzer starts from files the parsers accept. Run once; the
output is committed (a few KB per target)."""
import os, struct, sys

here = os.path.dirname(os.path.abspath(__file__))

def put(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())

def card(k, v=None):
    return (f"{k:<8}= {v}" if v is not None else k).ljust(80)[:80]

def header(cards):
    h = "".join(c.ljust(80) for c in cards) + "END".ljust(80)
    h += " " * (-len(h) % 2880)
    return h.encode()

def pad(b):
    return b + b"\0" * (-len(b) % 2880)

wcs = [card("CTYPE1", "'RA---TAN'"), card("CTYPE2", "'DEC--TAN'"), card("CRVAL1", "10.0"),
       card("CRVAL2", "20.0"), card("CRPIX1", "8.0"), card("CRPIX2", "8.0"),
       card("CD1_1", "-0.0001"), card("CD1_2", "0.0"), card("CD2_1", "0.0"),
       card("CD2_2", "0.0001"), card("RADESYS", "'FK5     '"), card("EQUINOX", "2000.0")]
pix = b"".join(struct.pack(">f", 100.0 + ((x * 7 + y * 3) % 11)) for y in range(16) for x in range(16))
img = header([card("SIMPLE", "T"), card("BITPIX", "-32"), card("NAXIS", "2"), card("NAXIS1", "16"),
              card("NAXIS2", "16")] + wcs) + pad(pix)
put("fits_image", "wcs16.fits", img)
put("fits_gzip", "wcs16.fits", img)
i16 = header([card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "2"), card("NAXIS1", "8"),
              card("NAXIS2", "8"), card("BZERO", "32768"), card("BSCALE", "1"),
              card("BLANK", "-32768")]) + pad(b"".join(struct.pack(">h", v) for v in range(64)))
put("fits_image", "int16_blank.fits", i16)

prim = header([card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"), card("EXTEND", "T")])
rows = b"".join(struct.pack(">ddi", 10 + r * 1e-4, 20 - r * 1e-4, r) for r in range(4))
tab = header([card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
              card("NAXIS1", "20"), card("NAXIS2", "4"), card("PCOUNT", "0"), card("GCOUNT", "1"),
              card("TFIELDS", "3"), card("TTYPE1", "'RA'"), card("TFORM1", "'D'"),
              card("TUNIT1", "'deg'"), card("TTYPE2", "'DEC'"), card("TFORM2", "'D'"),
              card("TTYPE3", "'ID'"), card("TFORM3", "'J'"), card("EXTNAME", "'OBJECTS'")]) + pad(rows)
put("fits_table", "radec.fits", prim + tab)

put("sex", "default.sex", """# minimal SExtractor configuration
CATALOG_NAME     test.cat
CATALOG_TYPE     ASCII_HEAD
PARAMETERS_NAME  default.param
DETECT_TYPE      CCD
DETECT_MINAREA   5
DETECT_THRESH    1.5
ANALYSIS_THRESH  1.5
FILTER           Y
FILTER_NAME      default.conv
DEBLEND_NTHRESH  32
DEBLEND_MINCONT  0.005
CLEAN            Y
CLEAN_PARAM      1.0
MASK_TYPE        CORRECT
PHOT_APERTURES   5,10
PHOT_AUTOPARAMS  2.5, 3.5
PHOT_FLUXFRAC    0.5
SATUR_LEVEL      50000.0
MAG_ZEROPOINT    0.0
GAIN             0.0
PIXEL_SCALE      1.0
SEEING_FWHM      1.2
BACK_SIZE        64
BACK_FILTERSIZE  3
BACKPHOTO_TYPE   GLOBAL
CHECKIMAGE_TYPE  NONE
MEMORY_OBJSTACK  3000
VERBOSE_TYPE     NORMAL
""")
put("param", "default.param", "NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_ISO\nFLUX_APER(2)\nMAG_AUTO\n"
    "# comment\nALPHA_J2000\nFLAGS\n")
put("conv", "gauss.conv", "CONV NORM\n# 3x3 ``all-ground'' convolution mask with FWHM = 2 pixels.\n"
    "1 2 1\n2 4 2\n1 2 1\n")
put("conv", "nonorm.conv", "CONV NONORM\n0.1 -0.2 0.1\n-0.2 1.5 -0.2\n0.1 -0.2 0.1\n")
put("csv", "radec.csv", "# a catalog\nid,ra,dec,mag,name\n1,10.0,20.0,12.5,\"a, b\"\n"
    "2,10.0001,20.0001,,x\n3,359.9999,-89.5,nan,\"q\"\"q\"\n")
hdr = ("ENVI\ndescription = {fuzz seed}\nsamples = 3\nlines = 2\nbands = 2\nheader offset = 0\n"
       "file type = ENVI Standard\ndata type = 4\ninterleave = bil\nbyte order = 0\n"
       "wavelength = {400.0, 500.0}\nband names = {a, b}\n")
put("envi", "cube.envi", hdr.encode() + b"\0" + b"".join(struct.pack("<f", v) for v in range(12)))

def mat_v5(dims, values):
    out = b"MATLAB 5.0 MAT-file, celeris fuzz seed".ljust(116) + b"\0" * 8 + b"\x00\x01IM"
    def el(t, payload):
        b = struct.pack("<II", t, len(payload)) + payload
        return b + b"\0" * (-len(b) % 8)
    body = el(6, struct.pack("<II", 7, 0)) + el(5, struct.pack("<" + "i" * len(dims), *dims))
    body += el(1, b"cube") + el(7, struct.pack("<" + "f" * len(values), *values))
    return out + struct.pack("<II", 14, len(body)) + body
put("mat", "cube_v5.mat", mat_v5([2, 3, 2], [float(v) for v in range(12)]))
