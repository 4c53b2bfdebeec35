// Declares SeenShapes: the input-shape sets a dynamic graph met once and has not compiled for, so
// that a set is compiled at its second use (CompiledModel::graph_for, SubgraphRunner's bodies).
#pragma once

#include <list>
#include <map>
#include <vector>

#include "vireo/shape.hpp"

namespace vireo::cpu_plugin {

/// A bounded set of shape sets, the oldest dropped first. Not thread-safe.
class SeenShapes {
  public:
    explicit SeenShapes(size_t limit) : m_limit(limit) {}

    /// Whether `shapes` was there (and removes it).
    bool take(const std::vector<Shape>& shapes) {
        auto it = m_index.find(shapes);
        if (it == m_index.end()) return false;
        m_order.erase(it->second);
        m_index.erase(it);
        return true;
    }
    void add(const std::vector<Shape>& shapes) {
        if (m_index.count(shapes)) return;
        m_order.push_front(shapes);
        m_index.emplace(shapes, m_order.begin());
        while (m_order.size() > m_limit) {
            m_index.erase(m_order.back());
            m_order.pop_back();
        }
    }

  private:
    size_t m_limit;
    std::list<std::vector<Shape>> m_order;  ///< newest first
    std::map<std::vector<Shape>, std::list<std::vector<Shape>>::iterator> m_index;
};

}  // namespace vireo::cpu_plugin
