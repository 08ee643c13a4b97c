#pragma once
// The iteration the CPU's broadcasting binary ops and sum/mean share (cpu_elemwise_kernels.cpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensor/shape.h"

namespace ampstudio::cpu {

// Walks an output shape in row-major order with the offsets of two operands read at each element
// (stride 0 along the dims they broadcast). Dims of size 1 are dropped and neighbours that are
// contiguous for both operands are merged, so (N,C,H,W) against (1,C,1,1) runs as (N, C, H*W).
class BroadcastPlan {
public:
    BroadcastPlan() = default;
    BroadcastPlan(const Shape& out, const Shape& a, const Shape& b) {
        const std::vector<int64_t> sa = strides(a, out);
        const std::vector<int64_t> sb = strides(b, out);
        for (std::size_t d = 0; d < out.size(); ++d) {
            if (out[d] == 1) {
                continue;
            }
            if (!m_dims.empty() && m_sa.back() == sa[d] * out[d] && m_sb.back() == sb[d] * out[d]) {
                m_dims.back() *= out[d];
                m_sa.back() = sa[d];
                m_sb.back() = sb[d];
                continue;
            }
            m_dims.push_back(out[d]);
            m_sa.push_back(sa[d]);
            m_sb.push_back(sb[d]);
        }
        if (m_dims.empty()) {
            m_dims = {1};
            m_sa = {0};
            m_sb = {0};
        }
        m_index.assign(m_dims.size(), 0);
    }

    // body(i, offsetA, offsetB) for every output element i.
    template <typename Body>
    void forEach(Body body) {
        const std::size_t nd = m_dims.size();
        const int64_t inner = m_dims[nd - 1];
        const int64_t ia = m_sa[nd - 1], ib = m_sb[nd - 1];
        int64_t total = 1;
        for (int64_t d : m_dims) {
            total *= d;
        }
        std::fill(m_index.begin(), m_index.end(), 0);
        int64_t oa = 0, ob = 0;
        for (int64_t base = 0; base < total; base += inner) {
            for (int64_t j = 0; j < inner; ++j) {
                body(base + j, oa + j * ia, ob + j * ib);
            }
            for (std::size_t d = nd - 1; d-- > 0;) {
                ++m_index[d];
                oa += m_sa[d];
                ob += m_sb[d];
                if (m_index[d] < m_dims[d]) {
                    break;
                }
                oa -= m_sa[d] * m_dims[d];
                ob -= m_sb[d] * m_dims[d];
                m_index[d] = 0;
            }
        }
    }

private:
    // Strides of `shape` read at the indices of `out`, right-aligned (numpy's rank extension).
    static std::vector<int64_t> strides(const Shape& shape, const Shape& out) {
        std::vector<int64_t> s(out.size(), 0);
        int64_t stride = 1;
        for (std::size_t k = shape.size(); k-- > 0;) {
            s[k + out.size() - shape.size()] = shape[k] == 1 ? 0 : stride;
            stride *= shape[k];
        }
        return s;
    }

    Shape m_dims;
    std::vector<int64_t> m_sa, m_sb, m_index;
};

}  // namespace ampstudio::cpu
