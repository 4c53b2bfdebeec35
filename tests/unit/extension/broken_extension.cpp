// Extensions that must be refused: BROKEN_KIND 1 declares another extension ABI version,
// 2 throws from its register function, 3 registers an op whose type exists already.
#include "vireo/extension.hpp"
#include "vireo/op_registry.hpp"

namespace {

[[maybe_unused]] void register_throwing() {
    vireo::throw_error<vireo::InvalidArgument>("boom: this extension refuses to register");
}

[[maybe_unused]] void register_duplicate() {
    vireo::OpDef def;
    def.type = "Relu";
    def.version = 1;
    def.min_inputs = def.max_inputs = 1;
    def.infer = [](const vireo::Node&, const std::vector<vireo::InferInput>& in) {
        return std::vector<vireo::InferOutput>{{in[0].type, in[0].shape}};
    };
    vireo::OpRegistry::instance().add(def);
}

[[maybe_unused]] void register_nothing() {}

}  // namespace

#if BROKEN_KIND == 1
extern "C" __attribute__((visibility("default"))) const vireo::extension::ExtensionEntry*
vireo_extension_entry() {
    static const vireo::extension::ExtensionEntry entry{99, VIREO_TOOLCHAIN_TAG, "bad_abi", "0",
                                                        register_nothing};
    return &entry;
}
#elif BROKEN_KIND == 2
VIREO_DEFINE_EXTENSION("throws", "0", register_throwing)
#else
VIREO_DEFINE_EXTENSION("duplicate", "0", register_duplicate)
#endif
