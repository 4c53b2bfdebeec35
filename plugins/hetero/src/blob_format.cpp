// Implements HETERO's export format (see blob_format.hpp).
#include "blob_format.hpp"

#include <cstdint>
#include <string_view>

#include "vireo/exception.hpp"
#include "vireo/sdk/blob_io.hpp"

namespace hetero {
using namespace vireo;

namespace {

constexpr std::string_view kMagic{"VIREOHET", 8};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kMaxString = uint64_t{1} << 40;  // no single field is a terabyte

void put_slots(sdk::BlobWriter& out, const std::vector<Slot>& slots) {
    out.u32(static_cast<uint32_t>(slots.size()));
    for (const Slot& slot : slots) {
        out.u8(static_cast<uint8_t>(slot.kind));
        out.u64(slot.index);
    }
}

std::vector<Slot> get_slots(sdk::BlobReader& in) {
    const uint32_t count = in.u32("a slot count");
    std::vector<Slot> slots;
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t kind = in.u8("a slot kind");
        if (kind > static_cast<uint8_t>(Slot::Kind::kCut))
            throw_error<InvalidArgument>("HETERO blob is damaged: slot kind ",
                                         static_cast<int>(kind));
        slots.push_back(
            Slot{static_cast<Slot::Kind>(kind), static_cast<size_t>(in.u64("a slot index"))});
    }
    return slots;
}

}  // namespace

void write_hetero_blob(std::ostream& stream, const HeteroBlob& blob) {
    sdk::BlobWriter out(stream, "HETERO");
    out.bytes(kMagic.data(), kMagic.size());
    out.u32(kVersion);
    out.string(blob.model_xml);
    out.string(blob.model_weights);
    out.u8(blob.profiling ? 1 : 0);
    out.string(blob.devices);
    out.u32(static_cast<uint32_t>(blob.affinity.size()));
    for (const auto& [name, device] : blob.affinity) {
        out.string(name);
        out.string(device);
    }
    out.u32(static_cast<uint32_t>(blob.parts.size()));
    for (const auto& part : blob.parts) {
        out.string(part.device);
        put_slots(out, part.inputs);
        put_slots(out, part.outputs);
        out.string(part.blob);
    }
    out.check();
}

HeteroBlob read_hetero_blob(std::istream& stream) {
    sdk::BlobReader r(stream, "HETERO", kMaxString);
    r.expect_magic(kMagic);
    const uint32_t version = r.u32("the format version");
    if (version != kVersion)
        throw_error<InvalidArgument>("HETERO: blob format version ", version,
                                     ", this plugin reads ", kVersion);
    HeteroBlob blob;
    blob.model_xml = r.string("the model xml");
    blob.model_weights = r.string("the model weights");
    blob.profiling = r.u8("the profiling flag") != 0;
    blob.devices = r.string("the device list");
    const uint32_t affinities = r.u32("the affinity count");
    for (uint32_t i = 0; i < affinities; ++i) {
        std::string name = r.string("an affinity's op name");
        blob.affinity[name] = r.string("an affinity's device");
    }
    const uint32_t parts = r.u32("the part count");
    for (uint32_t i = 0; i < parts; ++i) {
        HeteroBlob::Part part;
        part.device = r.string("a part's device");
        part.inputs = get_slots(r);
        part.outputs = get_slots(r);
        part.blob = r.string("a part's blob");
        blob.parts.push_back(std::move(part));
    }
    return blob;
}

}  // namespace hetero
