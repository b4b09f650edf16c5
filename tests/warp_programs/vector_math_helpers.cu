// Vector operators a project defines itself (helper_math.h style), used by a kernel. HIP declares
// most of them: hipconv disables those (HC012) and the program must compute the same with HIP's;
// the ones HIP lacks or computes differently (a cross product as ^, an int2 scaled by a float) stay.
// The host checks every component against plain scalar arithmetic. Values are small dyadic
// fractions, so every result is exact however the compiler orders or fuses the arithmetic.
#include <cstdio>

inline __host__ __device__ float3 operator-(float3 &a) { return make_float3(-a.x, -a.y, -a.z); }
inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ void operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; }
inline __host__ __device__ float3 operator-(float b, float3 a) { return make_float3(b - a.x, b - a.y, b - a.z); }
inline __host__ __device__ float3 operator*(float3 a, float b) { return make_float3(a.x * b, a.y * b, a.z * b); }
inline __host__ __device__ float3 operator*(float b, float3 a) { return make_float3(b * a.x, b * a.y, b * a.z); }
inline __host__ __device__ void operator/=(float3 &a, float b) { a.x /= b; a.y /= b; a.z /= b; }
inline __host__ __device__ float4 operator*(float4 a, float4 b)
{
    return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
}
inline __host__ __device__ float4 operator/(float4 a, float4 b)
{
    return make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w);
}
inline __host__ __device__ void operator-=(float4 &a, float4 b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; a.w -= b.w; }
inline __host__ __device__ int2 operator/(int2 a, int s) { return make_int2(a.x / s, a.y / s); }
inline __host__ __device__ int2 operator%(int2 a, int2 b) { return make_int2(a.x % b.x, a.y % b.y); }
inline __host__ __device__ uint4 operator>>(uint4 a, uint s) { return make_uint4(a.x >> s, a.y >> s, a.z >> s, a.w >> s); }
inline __host__ __device__ void operator^=(uint4 &a, uint4 b) { a.x ^= b.x; a.y ^= b.y; a.z ^= b.z; a.w ^= b.w; }
// kept: a cross product, not HIP's ^ (integers only); a float scale of an int2, not HIP's int2 * int
inline __host__ __device__ float3 operator^(float3 a, float3 b)
{
    return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
inline __host__ __device__ int2 operator*(int2 a, float s) { return make_int2(a.x * s, a.y * s); }

__global__ void vector_math(const float3 *p, const float4 *q, const int2 *c, const uint4 *h, float3 *p_out,
                            float4 *q_out, int2 *c_out, uint4 *h_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 a = p[i];
    float3 b = make_float3(0.5f, -1.25f, 2.0f);
    float3 v = a + b;
    v += 2.0f * a;
    v /= 4.0f;
    float3 w = 1.5f - (a ^ b) * 0.5f;
    p_out[2 * i] = -v;
    p_out[2 * i + 1] = w;
    float4 f = q[i] * make_float4(2.0f, 0.5f, -1.0f, 4.0f);
    f -= make_float4(1.0f, 1.0f, 1.0f, 1.0f);
    q_out[i] = f / make_float4(2.0f, 4.0f, 8.0f, 0.5f);
    c_out[2 * i] = c[i] / 3 + c[i] % make_int2(5, 7);
    c_out[2 * i + 1] = c[i] * 1.5f;
    uint4 g = h[i] >> 3u;
    g ^= h[i];
    h_out[i] = g;
}

static float3 f3(float x, float y, float z) { float3 r; r.x = x; r.y = y; r.z = z; return r; }

int main()
{
    const int n = 256;
    float3 p[n], p_out[2 * n];
    float4 q[n], q_out[n];
    int2 c[n], c_out[2 * n];
    uint4 h[n], h_out[n];
    for (int i = 0; i < n; ++i) {
        p[i] = f3(0.25f * (i % 13) - 1.5f, 0.5f * (i % 7), -0.125f * i);
        q[i] = make_float4(0.5f * i, -0.25f * (i % 9), 1.0f + i % 3, 0.0625f * i);
        c[i] = make_int2(17 * i - 900, i * i % 1000);
        h[i] = make_uint4(2654435761u * i, 40503u * i + 7u, ~(unsigned)i, 0x80000000u >> (i % 32));
    }
    float3 *dp, *dp_out; float4 *dq, *dq_out; int2 *dc, *dc_out; uint4 *dh, *dh_out;
    cudaMalloc(&dp, sizeof p); cudaMalloc(&dp_out, sizeof p_out);
    cudaMalloc(&dq, sizeof q); cudaMalloc(&dq_out, sizeof q_out);
    cudaMalloc(&dc, sizeof c); cudaMalloc(&dc_out, sizeof c_out);
    cudaMalloc(&dh, sizeof h); cudaMalloc(&dh_out, sizeof h_out);
    cudaMemcpy(dp, p, sizeof p, cudaMemcpyHostToDevice);
    cudaMemcpy(dq, q, sizeof q, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice);
    cudaMemcpy(dh, h, sizeof h, cudaMemcpyHostToDevice);
    vector_math<<<n / 64, 64>>>(dp, dq, dc, dh, dp_out, dq_out, dc_out, dh_out, n);
    cudaMemcpy(p_out, dp_out, sizeof p_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(q_out, dq_out, sizeof q_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(c_out, dc_out, sizeof c_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_out, dh_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float a[3] = {p[i].x, p[i].y, p[i].z}, b[3] = {0.5f, -1.25f, 2.0f};
        float cross[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
        float got_v[3] = {p_out[2 * i].x, p_out[2 * i].y, p_out[2 * i].z};
        float got_w[3] = {p_out[2 * i + 1].x, p_out[2 * i + 1].y, p_out[2 * i + 1].z};
        for (int k = 0; k < 3; ++k) {
            bad += got_v[k] != -(((a[k] + b[k]) + 2.0f * a[k]) / 4.0f);
            bad += got_w[k] != 1.5f - cross[k] * 0.5f;
        }
        float qa[4] = {q[i].x, q[i].y, q[i].z, q[i].w}, s[4] = {2.0f, 0.5f, -1.0f, 4.0f}, d[4] = {2.0f, 4.0f, 8.0f, 0.5f};
        float got_q[4] = {q_out[i].x, q_out[i].y, q_out[i].z, q_out[i].w};
        for (int k = 0; k < 4; ++k) bad += got_q[k] != (qa[k] * s[k] - 1.0f) / d[k];
        bad += c_out[2 * i].x != c[i].x / 3 + c[i].x % 5 || c_out[2 * i].y != c[i].y / 3 + c[i].y % 7;
        bad += c_out[2 * i + 1].x != (int)(c[i].x * 1.5f) || c_out[2 * i + 1].y != (int)(c[i].y * 1.5f);
        unsigned ha[4] = {h[i].x, h[i].y, h[i].z, h[i].w}, got_h[4] = {h_out[i].x, h_out[i].y, h_out[i].z, h_out[i].w};
        for (int k = 0; k < 4; ++k) bad += got_h[k] != ((ha[k] >> 3u) ^ ha[k]);
    }
    printf("%s: %d wrong components\n", bad ? "FAIL" : "PASS", bad);
    return bad ? 1 : 0;
}
