#pragma once
#include <cuda_runtime.h>

#define BINS 16

// Counts the values of `in` (0..BINS-1) into `bins` on the device; returns the kernel's launch error.
cudaError_t histogram(const unsigned char* in, int n, unsigned* bins);
