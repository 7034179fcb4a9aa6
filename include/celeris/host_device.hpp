// The one host/device function qualifier of celeris. Math shared by a CPU implementation and its
// CUDA kernels (HEALPix pixels, SPP weights, maxsub's tie order, ...) is written once as
// `CELERIS_HD inline` in a header that both g++ and nvcc compile: under nvcc the function is
// compiled for host and device, under a plain C++ compiler the macro is empty. Public because
// public headers (healpix.hpp) use it; plain C++17 and free of CUDA headers.
#pragma once

#ifndef CELERIS_HD
#ifdef __CUDACC__
#define CELERIS_HD __host__ __device__
#else
#define CELERIS_HD
#endif
#endif
