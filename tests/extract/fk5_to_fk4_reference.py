#!/usr/bin/env python3
"""Prints the reference table of tests/extract/fk5_to_fk4_test.cpp: J2000 (FK5) positions and
their B1950 (FK4) coordinates from astropy, FK4(equinox=B1950, obstime=J2000.0) (a source fixed
in FK5, observed at J2000.0: what SExtractor's j2b computes). Edge positions (RA 0 and near 360,
the equator, near both poles) and random ones (seeded).

usage: fk5_to_fk4_reference.py   (needs astropy; the test venv has it)
"""
import numpy as np
import astropy.units as u
from astropy.coordinates import FK4, FK5, SkyCoord
from astropy.time import Time

edges = [(0.0, 0.0), (359.999, 0.0), (0.001, 30.0), (180.0, -45.0), (90.0, 89.9),
         (270.0, -89.9), (10.684708, 41.26875), (266.41683, -29.00781), (83.633083, 22.0145)]
rng = np.random.default_rng(1950)
ra = rng.uniform(0, 360, 15)
dec = np.degrees(np.arcsin(rng.uniform(-1, 1, 15)))
pts = edges + list(zip(ra.tolist(), dec.tolist()))
c = SkyCoord([p[0] for p in pts] * u.deg, [p[1] for p in pts] * u.deg, frame=FK5(equinox="J2000"))
b = c.transform_to(FK4(equinox="B1950", obstime=Time("J2000")))
for (a, d), a50, d50 in zip(pts, b.ra.deg, b.dec.deg):
    print(f"    {{{a:.10f}, {d:.10f}, {a50:.10f}, {d50:.10f}}},")

# The rotation of north (dtheta1950, degrees): the position angle, east of north in J2000, of
# the B1950 pole seen from each position (away from the great circle through both poles, where
# SExtractor's law-of-cosines form degenerates to 0).
pole = SkyCoord(0 * u.deg, 90 * u.deg, frame=FK4(equinox="B1950", obstime=Time("J2000")))
pole = pole.transform_to(FK5(equinox="J2000"))
print()
for a, d in [(60.0, 30.0), (83.633083, 22.0145), (266.41683, -29.00781), (300.0, 60.0),
             (123.4, 5.6), (45.0, -70.0), (200.0, 10.0)]:
    pa = SkyCoord(a * u.deg, d * u.deg, frame=FK5(equinox="J2000")).position_angle(pole)
    print(f"    {{{a:.10f}, {d:.10f}, {pa.wrap_at(180 * u.deg).deg:.10f}}},")
