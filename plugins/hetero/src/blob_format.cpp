// Implements HETERO's export format (see blob_format.hpp).
#include "blob_format.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "vireo/exception.hpp"

namespace hetero {
using namespace vireo;

namespace {

constexpr char kMagic[8] = {'V', 'I', 'R', 'E', 'O', 'H', 'E', 'T'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kMaxString = uint64_t{1} << 40;  // no single field is a terabyte

void put(std::ostream& out, uint64_t value, int bytes) {
    char buffer[8];
    for (int i = 0; i < bytes; ++i) buffer[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    out.write(buffer, bytes);
}

void put_string(std::ostream& out, const std::string& s) {
    put(out, s.size(), 8);
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

void put_slots(std::ostream& out, const std::vector<Slot>& slots) {
    put(out, slots.size(), 4);
    for (const Slot& slot : slots) {
        put(out, static_cast<uint64_t>(slot.kind), 1);
        put(out, slot.index, 8);
    }
}

class Reader {
  public:
    explicit Reader(std::istream& in) : m_in(in) {}
    uint64_t get(int bytes) {
        unsigned char buffer[8] = {};
        m_in.read(reinterpret_cast<char*>(buffer), bytes);
        if (m_in.gcount() != bytes) truncated();
        uint64_t value = 0;
        for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | buffer[i];
        return value;
    }
    std::string get_string() {
        const uint64_t size = get(8);
        if (size > kMaxString)
            throw_error<InvalidArgument>("HETERO: damaged blob: a field of ", size, " bytes");
        std::string s;
        // Read in chunks so that a damaged length cannot make us allocate it all up front.
        while (s.size() < size) {
            const size_t chunk = static_cast<size_t>(std::min<uint64_t>(size - s.size(), 1 << 20));
            const size_t at = s.size();
            s.resize(at + chunk);
            m_in.read(s.data() + at, static_cast<std::streamsize>(chunk));
            if (static_cast<size_t>(m_in.gcount()) != chunk) truncated();
        }
        return s;
    }
    std::vector<Slot> get_slots() {
        const uint64_t count = get(4);
        std::vector<Slot> slots;
        for (uint64_t i = 0; i < count; ++i) {
            const uint64_t kind = get(1);
            if (kind > static_cast<uint64_t>(Slot::Kind::kCut))
                throw_error<InvalidArgument>("HETERO: damaged blob: slot kind ", kind);
            slots.push_back(Slot{static_cast<Slot::Kind>(kind), static_cast<size_t>(get(8))});
        }
        return slots;
    }

  private:
    [[noreturn]] void truncated() { throw_error<InvalidArgument>("HETERO: truncated blob"); }
    std::istream& m_in;
};

}  // namespace

void write_hetero_blob(std::ostream& out, const HeteroBlob& blob) {
    out.write(kMagic, sizeof(kMagic));
    put(out, kVersion, 4);
    put_string(out, blob.model_xml);
    put_string(out, blob.model_weights);
    put(out, blob.profiling ? 1 : 0, 1);
    put_string(out, blob.devices);
    put(out, blob.affinity.size(), 4);
    for (const auto& [name, device] : blob.affinity) {
        put_string(out, name);
        put_string(out, device);
    }
    put(out, blob.parts.size(), 4);
    for (const auto& part : blob.parts) {
        put_string(out, part.device);
        put_slots(out, part.inputs);
        put_slots(out, part.outputs);
        put_string(out, part.blob);
    }
    if (!out) throw_error<Exception>("HETERO: export_model: the stream refused the blob");
}

HeteroBlob read_hetero_blob(std::istream& in) {
    char magic[sizeof(kMagic)] = {};
    in.read(magic, sizeof(magic));
    if (in.gcount() != sizeof(magic) || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
        throw_error<InvalidArgument>("HETERO: not a HETERO blob (bad magic)");
    Reader r(in);
    const uint64_t version = r.get(4);
    if (version != kVersion)
        throw_error<InvalidArgument>("HETERO: blob format version ", version,
                                     ", this plugin reads ", kVersion);
    HeteroBlob blob;
    blob.model_xml = r.get_string();
    blob.model_weights = r.get_string();
    blob.profiling = r.get(1) != 0;
    blob.devices = r.get_string();
    const uint64_t affinities = r.get(4);
    for (uint64_t i = 0; i < affinities; ++i) {
        std::string name = r.get_string();
        blob.affinity[name] = r.get_string();
    }
    const uint64_t parts = r.get(4);
    for (uint64_t i = 0; i < parts; ++i) {
        HeteroBlob::Part part;
        part.device = r.get_string();
        part.inputs = r.get_slots();
        part.outputs = r.get_slots();
        part.blob = r.get_string();
        blob.parts.push_back(std::move(part));
    }
    return blob;
}

}  // namespace hetero
