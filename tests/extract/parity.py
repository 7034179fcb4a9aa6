#!/usr/bin/env python3
"""Run Debian's source-extractor and celeris on the same image with the same configuration and
compare the catalogs object by object (compare_catalogs.py, the extraction issue's acceptance).

usage: parity.py CELERIS_BIN IMAGE|sim:<name> WORKDIR [--drop-cards K1,K2] [--set-cards K=V,K=V]
                 [--crop Y0:Y1,X0:X1] [--rows-frac F] [--params P1,P2] [--col-tol NAME=TOL ...]
                 [--exact-columns N1,N2]
                 [-- extra -KEY VALUE ...]
--crop runs both tools on rows Y0:Y1 and columns X0:X1 (numpy slices, 0-based) of the image's
first image HDU, written with its header (CRPIX moved with the crop; needs astropy).
--params adds catalog parameters to the compared list (VIGNET(w,h) keeps its comma; FLUX_APER(5)
replaces the listed FLUX_APER(2)); --append-params P1,P2 appends them as given, even names
already listed (a .param file listing a parameter twice);
--exact-columns N1,N2 also runs both tools with FITS_1.0 catalogs and requires those columns
equal bit for bit (parity_runs.exact_columns);
--col-tol NAME=TOL also requires the median relative difference of column NAME <= TOL
(compare_catalogs.py). --flag-maps N writes N
flag maps of the image's size (int32; rectangles of flag values, some overlapping, over objects
and sky; seeded) and passes them as FLAG_IMAGE to both tools (needs astropy).
sim:<name> generates the image with `celeris simulate image` (sparse, crowded, nan, saturated,
border, strips, pixstack). --drop-cards / --set-cards run both tools on a copy of the image without those
header cards / with those set (numbers where they parse as numbers; needs astropy). Exit code 77
(ctest SKIP) when the image, source-extractor or astropy is absent.
"""
import os
import sys

from parity_runs import (exact_columns, exit_code, input_image, need_astropy, parity, sextractor,
                         split_extra, split_params, take, take_all)

PARAMS = ["NUMBER", "X_IMAGE", "Y_IMAGE", "FLUX_ISO", "FLUXERR_ISO", "FLUX_AUTO", "FLUXERR_AUTO",
          "FLUX_APER(2)", "ISOAREA_IMAGE", "A_IMAGE", "B_IMAGE", "THETA_IMAGE", "FLUX_RADIUS",
          "FWHM_IMAGE", "FLAGS"]

SIMS = {
    "sparse": ["--size", "2048", "--seed", "11"],
    "crowded": ["--size", "2048", "--seed", "12", "--density", "crowded"],
    # The paper's density (celeris simulate --density dense, 149k rows on 4096^2) on 2048^2:
    # small sources, the object stack full for most of the clean pass, thousands of merges.
    "dense": ["--size", "2048", "--seed", "7", "--density", "dense"],
    "nan": ["--size", "1024", "--seed", "13", "--nan-patches", "12"],
    "saturated": ["--size", "1024", "--seed", "14", "--saturated", "6"],
    "border": ["--size", "512", "--seed", "15", "--stars", "400"],
    # Taller than SExtractor's 1024-line buffer: objects written out during the scan, apertures
    # clipped to the buffer (FLAGS 16), saturated stars and NaN patches.
    "strips": ["--size", "3000", "--seed", "9", "--saturated", "40", "--nan-patches", "6"],
    # Crowded on 1024^2: at very low thresholds the noise percolates into objects open across
    # hundreds of rows, which overflow a small pixel stack (MEMORY_PIXSTACK).
    "pixstack": ["--size", "1024", "--seed", "19", "--density", "crowded"],
}


def flag_map(shape, rng, rectangles=1500):
    """A flag map (int32) of `rectangles` rectangles of single bits, combinations and larger
    values; half OR'ed onto what is there, half overwriting it, so that objects see several
    distinct values."""
    import numpy as np
    m = np.zeros(shape, np.int32)
    for r in range(rectangles):
        h, w = rng.integers(3, 40, size=2)
        y0, x0 = rng.integers(0, shape[0]), rng.integers(0, shape[1])
        v = int(rng.choice([1, 2, 4, 8, 16, 3, 5, 12, 64, 1000, 65536]))
        if r % 2:
            m[y0:y0 + h, x0:x0 + w] |= v
        else:
            m[y0:y0 + h, x0:x0 + w] = v
    return m


def merged_params(more):
    """PARAMS with the parameters of --params: one already listed with another vector size
    (FLUX_APER(5)) replaces it (SExtractor would keep only the last), the others are appended."""
    lines = list(PARAMS)
    for p in split_params(more):
        same = [i for i, q in enumerate(lines) if q.split("(")[0] == p.split("(")[0]]
        if same:
            lines[same[0]] = p
        else:
            lines.append(p)
    return lines


def main():
    argv, extra = split_extra(sys.argv[1:])
    drop = take(argv, "--drop-cards", "")
    drop = drop.split(",") if drop else []
    cards = {}
    set_cards = take(argv, "--set-cards")
    for item in set_cards.split(",") if set_cards else []:
        key, value = item.split("=", 1)
        try:
            cards[key] = float(value)
        except ValueError:
            cards[key] = value
    crop = take(argv, "--crop")
    if crop:
        crop = [tuple(int(v) for v in part.split(":")) for part in crop.split(",")]
    rows_frac = take(argv, "--rows-frac")  # the fraction of identical rows required (0.99)
    options = ["--rows-frac", rows_frac] if rows_frac is not None else []
    more = take(argv, "--params")
    params = merged_params(more) if more is not None else list(PARAMS)
    appended = take(argv, "--append-params")
    if appended is not None:  # as given, even names already listed
        params += split_params(appended)
    for item in take_all(argv, "--col-tol"):
        options += ["--col-tol", item]
    n_flag_maps = int(take(argv, "--flag-maps", "0"))
    exact = take(argv, "--exact-columns")
    celeris, spec, work = os.path.abspath(argv[0]), argv[1], os.path.abspath(argv[2])
    sextractor()
    os.makedirs(work, exist_ok=True)
    image = input_image(celeris, spec, work, SIMS)
    label = spec if spec.startswith("sim:") else os.path.basename(image)
    if drop or cards or crop or n_flag_maps:
        need_astropy()
    if drop or cards:
        from astropy.io import fits
        with fits.open(image) as hdus:
            for key in drop:
                hdus[0].header.remove(key, ignore_missing=True)
            for key, value in cards.items():
                hdus[0].header[key] = value
            stem = os.path.basename(image).replace(".fits", "")
            if drop:
                label += " without " + ",".join(drop)
                stem += "-without-" + "-".join(drop)
            if cards:
                label += " with " + ",".join(cards)
                stem += "-with-" + "-".join(cards)
            image = os.path.join(work, stem + ".fits")
            hdus.writeto(image, overwrite=True)
    if crop:
        import numpy as np
        from astropy.io import fits
        (y0, y1), (x0, x1) = crop
        with fits.open(image) as hdus:
            hdu = next(h for h in hdus if h.data is not None)
            header = hdu.header.copy()
            for key, shift in (("CRPIX1", x0), ("CRPIX2", y0)):
                if key in header:
                    header[key] -= shift
            stem = os.path.basename(image).replace(".fits", "") + f"-crop-{y0}-{y1}-{x0}-{x1}"
            label += f"[{y0}:{y1}, {x0}:{x1}]"
            image = os.path.join(work, stem + ".fits")
            fits.writeto(image, hdu.data[y0:y1, x0:x1].astype(np.float32), header, overwrite=True)
    if n_flag_maps:
        import numpy as np
        from astropy.io import fits
        with fits.open(image) as hdus:
            shape = next(h.data.shape for h in hdus if h.data is not None)
        rng = np.random.default_rng(19)
        names = []
        for k in range(n_flag_maps):
            names.append(os.path.join(work, f"flag{k}.fits"))
            fits.writeto(names[-1], flag_map(shape, rng), overwrite=True)
        extra = ["-FLAG_IMAGE", ",".join(names)] + extra
    verdict = parity(celeris, image, work, os.path.basename(image), params, extra, label,
                     ["--same-columns"] + options)
    if exact:
        verdict |= exact_columns(celeris, image, work, os.path.basename(image), params, extra,
                                 exact.split(","))
    return verdict


if __name__ == "__main__":
    sys.exit(exit_code(main))
