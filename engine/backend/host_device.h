#pragma once
// AMS_HOST_DEVICE marks a function that both the host compiler and nvcc compile, for the host and the
// device (the headers whose rules the CPU and CUDA backends must share bit for bit).
#if defined(__CUDACC__)
#define AMS_HOST_DEVICE __host__ __device__
#else
#define AMS_HOST_DEVICE
#endif
