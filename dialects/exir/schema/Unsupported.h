//===- Unsupported.h - operators ptec refuses outright, and why -*- C++ -*-===//
//
// Some operators can reach ptec in a saved graph but cannot become an
// ExecuTorch program: gradient ops, sparse and complex tensors, matrix
// factorizations without a portable kernel, random sampling, eager
// quantization internals. They are refused by name with the reason, at import
// (where most are not in the schema registry) and by `aot-compile --list-ops`.
// The reasons are categories matched on the operator's name, plus a few
// entries of their own (Unsupported.cpp). Operators that are supported only
// for some arguments are refused by their legalization rule instead, with the
// argument that is not supported.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptec::schema {

/// Why operator `name` ("aten::linalg_svd", "aten::add_.Tensor") is refused
/// outright; empty when it is not. The text completes "'<name>' is not
/// supported: ...", names no C++ or runtime internals, and says what to do
/// where there is something to do.
std::string unsupportedReason(std::string_view name);

/// The operator named by a graph node's target ("torch.ops.aten.pad.default"
/// -> "aten::pad", "torch.ops.aten.add.Tensor" -> "aten::add.Tensor"); empty
/// when `target` is not of that form.
std::string operatorNameOfTarget(std::string_view target);

/// The operators named one by one in the refusal table (not the categories),
/// for listings.
std::vector<std::string> unsupportedOperatorNames();

} // namespace ptec::schema
