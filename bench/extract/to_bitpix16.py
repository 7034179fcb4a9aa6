# A float FITS frame (BITPIX -32, as `celeris simulate` writes it) rewritten as BITPIX 16 with
# BZERO 32768 and BLANK -32768 (its NaN pixels), the values rounded: a camera's raw frame, for the
# stream's 16-bit rate (bench_stream). numpy only.  python3 to_bitpix16.py IN.fits OUT.fits
import sys

import numpy as np

src, dst = sys.argv[1], sys.argv[2]
raw = open(src, 'rb').read()
cards, at = [], 0
while True:
    block = raw[at:at + 2880]
    at += 2880
    done = False
    for i in range(0, 2880, 80):
        c = block[i:i + 80].decode('ascii')
        if c.startswith('END'):
            done = True
            break
        cards.append(c)
    if done:
        break
kv = {c[:8].strip(): c[10:].split('/')[0].strip() for c in cards if c[8:10] == '= '}
w, h = int(kv['NAXIS1']), int(kv['NAXIS2'])
v = np.frombuffer(raw[at:at + 4 * w * h], dtype='>f4').astype(np.float64)
q = np.where(np.isnan(v), -32768, np.clip(np.round(v), -32767, 32767)).astype('>i2')


def card(k, val):
    return (k.ljust(8) + '= ' + str(val).rjust(20)).ljust(80)


out = [card('SIMPLE', 'T'), card('BITPIX', 16), card('NAXIS', 2), card('NAXIS1', w), card('NAXIS2', h),
       card('BZERO', 32768), card('BSCALE', 1), card('BLANK', -32768), 'END'.ljust(80)]
hdr = ''.join(out).encode('ascii')
hdr += b' ' * (-len(hdr) % 2880)
data = q.tobytes()
data += b'\0' * (-len(data) % 2880)
open(dst, 'wb').write(hdr + data)
