// Declares vireo::Layout: the names of a tensor's dimensions ("NCHW", "N...", "[N,C,H,W]"), used by
// pre/post-processing and by batched inputs to find the batch, channel and spatial axes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vireo {

/// What each dimension of a tensor means, in the notation of OpenVINO's ov::Layout.
///
/// Accepted strings:
/// - one letter per dimension: "NCHW", "NHWC", "NC"; letters are case-insensitive and stored
///   upper-case; "?" is a dimension without a name ("?C??");
/// - "..." once, for any number of unnamed dimensions: "N...", "...C", "N...C", "...";
/// - the bracket form, comma-separated, whose names may be longer than one letter:
///   "[N,C,H,W]", "[batch, ?, ..., seq]"; names are letters, digits and '_' (starting with a
///   letter), case-insensitive; "[]" is the layout of a scalar;
/// - "" is the empty layout (nothing known; the same as "...").
/// Invalid strings throw InvalidArgument quoting the string and the fault: an unknown
/// character, a name used twice, "..." twice, a missing ']' or an empty name between commas.
///
/// Indexing: dimensions before "..." have indices 0, 1, ...; those after it are counted from
/// the end: -1 is the last. Without "..." every index is non-negative and the rank is known.
///
/// A Layout is a small value; copies are independent and it is safe to share across threads.
///
///     Layout l("NHWC");
///     l.get_index("C");          // 3
///     layout::channels_idx(l);   // 3
///     Layout("N...C").get_index("C");  // -1
class Layout {
  public:
    /// The empty layout ("..."): rank and names unknown.
    Layout() = default;
    /// Parses `text` as described above; throws InvalidArgument on a malformed string.
    Layout(const std::string& text);  // NOLINT: "NCHW" converts implicitly, as in OpenVINO
    Layout(const char* text);         // NOLINT

    /// The layout of a rank-0 tensor ("[]").
    static Layout scalar();

    /// True when nothing is known (constructed from "" or "...").
    bool empty() const;
    /// True when there is no "...", so the rank is known.
    bool is_static() const { return !m_ellipsis; }
    /// The rank when is_static(), else nullopt.
    std::optional<size_t> rank() const;
    /// True when a dimension is named `name` (case-insensitive).
    bool has_dim(const std::string& name) const;
    /// Index of the dimension named `name`: non-negative before "...", negative (from the end)
    /// after it. Throws NotFound quoting the layout when there is no such dimension.
    int64_t get_index(const std::string& name) const;
    /// get_index() resolved for a tensor of `rank` dimensions (a negative index counts from the
    /// end). Throws NotFound when absent and InvalidArgument when the layout cannot describe a
    /// tensor of that rank (a static layout of another rank, or too few dimensions for the names).
    size_t get_index(const std::string& name, size_t rank) const;
    /// True when the layout can describe a tensor of `rank` dimensions.
    bool fits_rank(size_t rank) const;
    /// Names per dimension for a tensor of `rank` ("?" for unnamed ones, including those "..."
    /// stands for). Throws InvalidArgument like get_index(name, rank).
    std::vector<std::string> names_for_rank(size_t rank) const;

    /// The canonical string: the letter form when every name is one letter ("NCHW", "N...C",
    /// "?C??"), else the bracket form ("[batch,C,...]"); "[]" for a scalar, "" when empty.
    std::string to_string() const;

    bool operator==(const Layout& other) const;
    bool operator!=(const Layout& other) const { return !(*this == other); }

  private:
    std::vector<std::string> m_front;  // names before "..." ("?" = unnamed)
    std::vector<std::string> m_back;   // names after "..."
    bool m_ellipsis = true;            // the default layout is "..."
};

/// Helpers for the conventional dimension names: N (batch), C (channels), D (depth),
/// H (height), W (width). Each `*_idx` returns Layout::get_index() of that name and throws
/// NotFound when the layout does not have it.
namespace layout {
bool has_batch(const Layout& l);
int64_t batch_idx(const Layout& l);
bool has_channels(const Layout& l);
int64_t channels_idx(const Layout& l);
bool has_depth(const Layout& l);
int64_t depth_idx(const Layout& l);
bool has_height(const Layout& l);
int64_t height_idx(const Layout& l);
bool has_width(const Layout& l);
int64_t width_idx(const Layout& l);
}  // namespace layout

}  // namespace vireo
