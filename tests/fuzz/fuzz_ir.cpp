// Fuzz target: the IR reader over XML text and weights bytes. The input is the .xml text, then
// the separator "\n@@BIN@@\n", then the .bin bytes (no separator: all XML, no weights). A model
// that reads must also serialize and read back; anything but vireo::Exception is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "vireo/ir.hpp"

namespace {
constexpr std::string_view kSeparator = "\n@@BIN@@\n";

/// The weights in a heap block of exactly their size (malloc-aligned), so ASan sees any overread.
struct Weights {
    std::unique_ptr<char[]> memory;
    vireo::Tensor tensor;
    explicit Weights(std::string_view bytes) {
        if (bytes.empty()) return;
        memory.reset(new char[bytes.size()]);
        std::memcpy(memory.get(), bytes.data(), bytes.size());
        tensor = vireo::Tensor(vireo::element::u8, vireo::Shape{bytes.size()}, memory.get());
    }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find(kSeparator);
    const std::string xml(input.substr(0, split));
    const std::string_view bin = split == std::string_view::npos
                                     ? std::string_view{}
                                     : input.substr(split + kSeparator.size());
    const Weights weights(bin);  // declared before the model: Constants point into it
    std::shared_ptr<vireo::Model> model;
    try {
        model = vireo::read_model_from_string(xml, weights.tensor);
    } catch (const vireo::Exception&) {
        return 0;
    }
    (void)model->get_ordered_ops().size();
    std::ostringstream xml_out, bin_out;
    vireo::serialize(*model, xml_out, bin_out);
    const Weights written(bin_out.str());
    try {
        (void)vireo::read_model_from_string(xml_out.str(), written.tensor);
    } catch (const vireo::Exception& e) {
        std::fprintf(stderr, "a model that read did not read back after serialize: %s\n", e.what());
        std::abort();
    }
    return 0;
}
