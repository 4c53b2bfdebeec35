// Declares BlobSectionWriter and BlobSectionReader: what a plugin's export_model writes and its
// import_model reads — named, length-prefixed sections that the core stores in its one blob
// container (vireo/sdk/blob_container.hpp) under one header and one checksum.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "vireo/any.hpp"
#include "vireo/model.hpp"
#include "vireo/tensor.hpp"

namespace vireo::sdk {

/// A section is `u32 name length, name, u64 size, size bytes` (integers little-endian); a
/// plugin's blob is its sections one after the other, nothing before, between or after them.
/// Names are 1 to kMaxBlobSectionName bytes, unique within a blob; names starting "vireo." are
/// the core's. Conventional names: "ir.xml" and "ir.bin" (the model as IR v11), one
/// "property:<key>" section per compile property (properties()). The core checks a blob's
/// checksum before import_model sees it; an application may still hand import_model any bytes,
/// so write a required section last ("ir.bin" by model()): a blob cut at a section boundary then
/// lacks it, instead of silently lacking optional sections.
inline constexpr uint32_t kMaxBlobSectionName = 4096;

/// Writes sections to the stream export_model gets. Not thread-safe; one writer per stream.
///
///     sdk::BlobSectionWriter blob(out, "MYDEV");
///     blob.properties(m_config.values);
///     blob.model(*m_model);
///     blob.section("mydev.kernels", kernels);
///     blob.check();
class BlobSectionWriter {
  public:
    /// `owner` starts the error messages, e.g. "TEMPLATE".
    BlobSectionWriter(std::ostream& out, std::string owner);

    /// A section holding `bytes`. Throws InvalidArgument for an empty, too long, reserved
    /// ("vireo.") or repeated name.
    void section(std::string_view name, std::string_view bytes);
    /// One "property:<key>" section per value, holding value.to_string().
    void properties(const AnyMap& values);
    /// Sections "ir.xml" and "ir.bin": `model` as IR v11. The weights go straight into the stream
    /// (the model is serialized twice, once to learn their size); Unavailable "<owner>: writing
    /// the exported model failed ..." when the stream fails on the way.
    void model(const Model& model);
    /// Starts a section of `size` bytes that the caller writes to the returned stream itself (a
    /// serializer writing weights straight into it, without a copy). The next call checks, when
    /// the stream can tell its position, that exactly `size` bytes were written (else Exception).
    std::ostream& begin_section(std::string_view name, uint64_t size);
    /// Throws Unavailable "<owner>: writing the exported model failed (stream error)" if the
    /// stream has failed, Exception if begin_section's size was not kept; call after the last.
    void check();

  private:
    void header(std::string_view name, uint64_t size);
    std::ostream& m_out;
    std::string m_owner;
    std::vector<std::string> m_names;
    std::streampos m_open_end = std::streampos(-1);  // where begin_section's bytes must end
};

/// Reads the sections of the stream import_model gets. The constructor reads the table (each
/// section's name and size, checked against the bytes the stream holds) and seeks past the
/// contents; they are read when asked for, straight into the caller's memory. Errors are
/// InvalidArgument starting "<owner> blob": "section 'ir.bin' is truncated: it claims 4096 bytes,
/// 12 are left", "duplicate section 'ir.xml'", "missing required section 'ir.xml'", "unknown
/// section 'x'". Never allocates more than the stream holds. Not thread-safe.
///
///     sdk::BlobSectionReader blob(in, "MYDEV");
///     AnyMap arguments = blob.properties();
///     std::shared_ptr<Model> model = blob.model();
///     const std::string kernels = blob.string("mydev.kernels");
///     blob.expect_all_read();
class BlobSectionReader {
  public:
    /// Reads from `in`'s position to its end (an unseekable stream is read into memory first).
    BlobSectionReader(std::istream& in, std::string owner);
    ~BlobSectionReader();

    bool has(std::string_view name) const;
    /// The names starting with `prefix`, in the order they were written.
    std::vector<std::string> names(std::string_view prefix) const;
    /// The section's size; "missing required section" when there is none.
    uint64_t size(std::string_view name) const;
    /// Copies the section's size(name) bytes to `to`.
    void read(std::string_view name, void* to);
    std::string string(std::string_view name);
    /// The "property:<key>" sections as key -> string value.
    AnyMap properties();
    /// The model of the "ir.xml" and "ir.bin" sections. Its Constants share `weights`, which the
    /// bytes of "ir.bin" are read into: a u8 tensor of size("ir.bin") bytes in memory of the
    /// caller's choosing, or, when empty, an owning (64-byte aligned) tensor made here.
    /// InvalidArgument "<owner> blob holds a damaged model: ..." when the IR cannot be read.
    std::shared_ptr<Model> model(Tensor weights = {});
    /// Throws "unknown section '<name>'" for the first section nothing has read.
    void expect_all_read() const;

  private:
    struct Entry {
        std::string name;
        uint64_t offset;  // of the contents, from the stream's start position
        uint64_t size;
        bool read = false;
    };
    const Entry& entry(std::string_view name) const;
    [[noreturn]] void fail(const std::string& what) const;
    std::unique_ptr<std::istream> m_owned;  // an unseekable stream's bytes, read into memory
    std::istream* m_in;
    std::string m_owner;
    std::streamoff m_start = 0;
    std::vector<Entry> m_entries;
    std::map<std::string, size_t, std::less<>> m_index;
};

}  // namespace vireo::sdk
