#!/usr/bin/env python3
"""The labelling baseline of the GPU extraction: cupyx.scipy.ndimage.label (8-connected) on the
same threshold mask celeris labels, timed on the GPU (median of --repeat runs after a warm-up).

usage: label_cupy.py MINUS_BACKGROUND.fits FILTERED.fits THRESHOLD [--repeat N]
The two images are celeris's check images (-BACKGROUND and FILTERED) of the frame; the mask is
value not NaN and filtered > THRESHOLD (the detection threshold in ADU, as celeris prints it).
Reads FITS with numpy alone (one primary HDU, BITPIX -32).
"""
import sys
import time

import numpy as np


def read_fits_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    cards, off = {}, 0
    while True:
        block = data[off:off + 2880]
        off += 2880
        for i in range(0, 2880, 80):
            card = block[i:i + 80].decode("ascii", "replace")
            key = card[:8].strip()
            if key == "END":
                nx, ny = int(cards["NAXIS1"]), int(cards["NAXIS2"])
                assert int(cards["BITPIX"]) == -32
                return np.frombuffer(data, dtype=">f4", count=nx * ny, offset=off).reshape(ny, nx)
            if card[8:10] == "= ":
                cards[key] = card[10:].split("/")[0].strip()


def main():
    value, filtered, thresh = sys.argv[1], sys.argv[2], float(sys.argv[3])
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 20
    import cupy as cp
    import cupyx.scipy.ndimage as ndi
    v, c = read_fits_f32(value), read_fits_f32(filtered)
    mask = cp.asarray((~np.isnan(v)) & (np.nan_to_num(c, nan=-np.inf) > thresh))
    structure = cp.ones((3, 3), dtype=bool)
    labels, n = ndi.label(mask, structure=structure)  # warm-up
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        labels, n = ndi.label(mask, structure=structure)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    times.sort()
    print(f"cupyx.scipy.ndimage.label {mask.shape[1]}x{mask.shape[0]}: {int(n)} components, "
          f"{times[len(times) // 2]:.3f} ms (median of {repeat}), mask pixels {int(mask.sum())}")


if __name__ == "__main__":
    main()
