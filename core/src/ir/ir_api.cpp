// Implements the public IR entry points of vireo/ir.hpp: file and in-memory reading, and
// serializing to files; the work is done by IrReader and IrWriter.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ir/ir_reader.hpp"
#include "ir/ir_writer.hpp"
#include "ir/mapped_file.hpp"
#include "ir/read_options.hpp"
#include "vireo/ir.hpp"

namespace vireo {
namespace {

std::string with_bin_extension(const std::string& xml_path) {
    return std::filesystem::path(xml_path).replace_extension(".bin").string();
}

}  // namespace

std::shared_ptr<Model> ir::read_model_file(const std::string& xml_path, const std::string& bin_path,
                                           const ReadOptions& options) {
    // The .xml is read, not mapped: it is parsed once and dropped, and a mapping would let a
    // truncation during parsing kill the process.
    std::unique_ptr<ir::MappedFile> xml;
    try {
        xml = std::make_unique<ir::MappedFile>(xml_path, ir::FileAccess::kRead);
    } catch (...) {
        rethrow_with_context(std::current_exception(), "reading IR");
    }
    ir::Weights weights;
    const std::string bin = bin_path.empty() ? with_bin_extension(xml_path) : bin_path;
    try {
        auto file = std::make_shared<ir::MappedFile>(
            bin, options.enable_mmap ? ir::FileAccess::kMap : ir::FileAccess::kRead);
        weights.data = file->data();
        weights.size = file->size();
        weights.owner = std::move(file);
    } catch (const NotFound&) {
        // A derived .bin may be absent when nothing needs weights; an explicit one must exist.
        if (!bin_path.empty())
            throw_error<NotFound>("IR '", xml_path, "': the weights file '", bin,
                                  "' does not exist");
        weights.missing = "the weights file '" + bin + "' does not exist";
    } catch (...) {
        rethrow_with_context(std::current_exception(), "IR '" + xml_path + "'");
    }
    const bool has_bin = weights.missing.empty();
    auto model =
        ir::IrReader("'" + xml_path + "'", std::move(weights)).read(xml->data(), xml->size());
    // The files the model was read from: serialize() refuses to overwrite them.
    std::vector<std::string> sources;
    std::error_code ec;
    if (auto path = std::filesystem::weakly_canonical(xml_path, ec); !ec)
        sources.push_back(path.string());
    if (has_bin)
        if (auto path = std::filesystem::weakly_canonical(bin, ec); !ec)
            sources.push_back(path.string());
    model->get_rt_info()["__source_files"] = std::move(sources);
    return model;
}

std::shared_ptr<Model> read_model(const std::string& xml_path, const std::string& bin_path) {
    return ir::read_model_file(xml_path, bin_path, ir::ReadOptions{});
}

std::shared_ptr<Model> read_model_from_string(const std::string& xml_text, const Tensor& weights) {
    ir::Weights bytes;
    if (weights) {
        if (weights.is_remote())
            throw_error<InvalidArgument>(
                "IR text: the weights must be a host tensor, not a remote one");
        if (!weights.is_continuous())
            throw_error<InvalidArgument>("IR text: the weights tensor must be contiguous");
        bytes.data = static_cast<const char*>(weights.data());
        bytes.size = weights.get_byte_size();
        bytes.owner = std::make_shared<Tensor>(weights);
    }
    return ir::IrReader("text", std::move(bytes)).read(xml_text.data(), xml_text.size());
}

void serialize(const Model& model, const std::string& xml_path, const std::string& bin_path) {
    namespace fs = std::filesystem;
    const std::string bin = bin_path.empty() ? with_bin_extension(xml_path) : bin_path;
    if (xml_path.empty()) throw_error<InvalidArgument>("serialize: the .xml path is empty");
    std::error_code ec;
    const fs::path xml_full = fs::weakly_canonical(xml_path, ec);
    const fs::path bin_full = fs::weakly_canonical(bin, ec);
    if (xml_full == bin_full)
        throw_error<InvalidArgument>(
            "serialize: the XML and the weights would both be written to '", xml_path,
            "'; give the .xml path (the .bin goes beside it) ", "or two different paths");
    // Never over the model's own source files (the ONNX file, its external data, the IR it was
    // read from): the model may still read its weights from them, and the user would lose them.
    const auto& rt = model.get_rt_info();
    if (auto it = rt.find("__source_files");
        it != rt.end() && it->second.is<std::vector<std::string>>())
        for (const auto& source : it->second.as<std::vector<std::string>>())
            for (const auto* target : {&xml_full, &bin_full})
                if (fs::path(source) == *target)
                    throw_error<InvalidArgument>(
                        "serialize: '", target->string(),
                        "' is a file this model was read from; write to another path");
    // Written to temporary files beside the targets and renamed over them only when both are
    // complete: a failed write (full disk, bad model) leaves any existing files untouched.
    const std::string suffix = ".tmp" + std::to_string(::getpid());
    const std::string xml_tmp = xml_path + suffix, bin_tmp = bin + suffix;
    auto open = [](const std::string& path, const std::string& target) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        if (!out.is_open())
            throw_error<InvalidArgument>("cannot open '", target,
                                         "' for writing: ", std::strerror(errno));
        return out;
    };
    auto remove_temporaries = [&] {
        fs::remove(xml_tmp, ec);
        fs::remove(bin_tmp, ec);
    };
    try {
        std::ofstream xml = open(xml_tmp, xml_path);
        std::ofstream weights = open(bin_tmp, bin);
        ir::IrWriter(model).write(xml, weights);
        xml.close();
        weights.close();
        if (!xml || !weights)
            throw_error<InvalidArgument>("writing IR '", xml_path, "' / '", bin,
                                         "' failed: ", std::strerror(errno));
        fs::rename(bin_tmp, bin);
        fs::rename(xml_tmp, xml_path);
    } catch (const fs::filesystem_error& e) {
        remove_temporaries();
        throw_error<InvalidArgument>("writing IR '", xml_path, "' / '", bin,
                                     "' failed: ", e.code().message());
    } catch (...) {
        remove_temporaries();
        throw;
    }
}

void serialize(const Model& model, std::ostream& xml, std::ostream& bin) {
    ir::IrWriter(model).write(xml, bin);
}

}  // namespace vireo
