// Declares helpers the samples share: shape arguments, deterministic input data, value printing.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "vireo/partial_shape.hpp"
#include "vireo/tensor.hpp"

namespace vireo::samples {

/// Parses "-shape" text: "[1,3,224,224]" (for the only input) or "a[1,3],b[2..8,4]" (by tensor
/// name). The key of an unnamed shape is "". Throws InvalidArgument naming the text.
std::map<std::string, PartialShape> parse_shape_argument(const std::string& text);

/// Fills `tensor` with deterministic pseudo-random values for `seed`: reals in [0, 1),
/// integers in [0, 100), booleans 0/1. Any static byte-sized element type.
void fill_random(Tensor& tensor, uint64_t seed);

/// The first `count` values of a host tensor as text: "0.5, 1, 2.25 ...".
std::string format_values(const Tensor& tensor, size_t count);

/// When argv holds -h, -help or --help: prints the usage message (gflags::SetUsageMessage first)
/// and only the flags defined in source files whose path contains `flags_file` (the sample's own,
/// not glog's or gflags'), and returns true; the caller then exits 0. Call before
/// gflags::ParseCommandLineFlags, which would print every linked library's flags.
bool show_help_if_asked(int argc, char** argv, const char* flags_file);

/// Every value given to flag `name` in argv (`-i a`, `-i=a`, `--i a`, `--i=a`, up to a lone
/// "--"), joined with ','. gflags keeps only the last of a repeated flag; call this before
/// gflags::ParseCommandLineFlags and assign the result to the flag after it, so `-i a=x -i b=y`
/// means `-i a=x,b=y`.
std::string repeated_flag_values(int argc, char** argv, const std::string& name);

/// Runs `body` and turns any exception into "[ ERROR ] message" on stderr and exit code 1.
int run_main(int (*body)(int, char**), int argc, char** argv);

}  // namespace vireo::samples
