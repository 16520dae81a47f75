//===- ExirDialect.cpp - exir dialect registration ------------------------===//

#include "dialects/exir/IR/ExirDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace ptec::exir;

#include "dialects/exir/IR/ExirDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/exir/IR/ExirAttrs.cpp.inc"

void ExirDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/exir/IR/ExirAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/exir/IR/ExirOps.cpp.inc"
      >();
}

bool ptec::exir::isValidInputKind(llvm::StringRef kind) {
  return llvm::is_contained({"user_input", "parameter", "buffer", "constant",
                             "custom_obj"},
                            kind);
}

bool ptec::exir::isValidOutputKind(llvm::StringRef kind) {
  return llvm::is_contained(
      {"user_output", "buffer_mutation", "user_input_mutation"}, kind);
}

/// What InputAttr and OutputAttr check: a known kind (`expected` lists
/// them), and a name unless the kind is `unnamedKind`.
static LogicalResult verifyKind(function_ref<InFlightDiagnostic()> emitError,
                                StringRef what, StringAttr kind, bool known,
                                StringRef expected, StringRef unnamedKind,
                                StringAttr name, StringRef nameIs) {
  if (!known)
    return emitError() << "unknown " << what << " kind '" << kind.getValue()
                       << "' (expected " << expected << ")";
  if (kind.getValue() != unnamedKind && (!name || name.getValue().empty()))
    return emitError() << what << " of kind '" << kind.getValue() << "' needs "
                       << nameIs;
  return success();
}

LogicalResult InputAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringAttr kind, StringAttr fqn) {
  return verifyKind(emitError, "graph input", kind, isValidInputKind(kind.getValue()),
                    "user_input, parameter, buffer, constant or custom_obj",
                    "user_input", fqn, "a fully qualified name");
}

LogicalResult OutputAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringAttr kind, StringAttr target) {
  return verifyKind(emitError, "output", kind, isValidOutputKind(kind.getValue()),
                    "user_output, buffer_mutation or user_input_mutation",
                    "user_output", target, "the name of the state it writes");
}

InputAttr ptec::exir::getInputAttr(Operation *op, unsigned i) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func || i >= func.getNumArguments())
    return {};
  return func.getArgAttrOfType<InputAttr>(i, ExirDialect::kInputAttrName);
}

OutputAttr ptec::exir::getOutputAttr(Operation *op, unsigned i) {
  auto func = dyn_cast<func::FuncOp>(op);
  if (!func || i >= func.getNumResults())
    return {};
  return func.getResultAttrOfType<OutputAttr>(i, ExirDialect::kOutputAttrName);
}

LogicalResult ptec::exir::checkBlobSize(Operation *at, DenseResourceElementsAttr value) {
  AsmResourceBlob *blob = value.getRawHandle().getBlob();
  if (!blob)
    return success();
  // Saved IR may pair any blob with any type: every reader of these bytes
  // indexes them by the type, so the sizes must agree.
  auto type = llvm::cast<ShapedType>(value.getType());
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    return success();
  unsigned bits = element.getIntOrFloatBitWidth();
  uint64_t expected =
      static_cast<uint64_t>(type.getNumElements()) * (bits == 1 ? 1 : (bits + 7) / 8);
  size_t have = blob->getData().size();
  if (have != expected)
    return at->emitError("weight data '")
           << value.getRawHandle().getKey() << "' holds " << have
           << " bytes, but its type " << type << " needs " << expected;
  return success();
}

LogicalResult ptec::exir::getElementsBytes(Operation *at, ElementsAttr value,
                                           std::vector<uint8_t> &out) {
  auto type = llvm::cast<ShapedType>(value.getType());
  int64_t numel = type.getNumElements();
  if (auto res = llvm::dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return at->emitError("weight data '")
             << res.getRawHandle().getKey() << "' is missing (no resource blob)";
    if (failed(checkBlobSize(at, res)))
      return failure();
    ArrayRef<char> d = blob->getData();
    out.assign(d.begin(), d.end());
    return success();
  }
  auto dense = llvm::dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return at->emitError("unsupported weight attribute ") << value;
  if (type.getElementType().isInteger(1)) {
    out.clear();
    for (bool v : dense.getValues<bool>())
      out.push_back(v ? 1 : 0);
    return success();
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    out.clear();
    for (int64_t i = 0; i < numel; ++i)
      out.insert(out.end(), raw.begin(), raw.end());
  } else {
    out.assign(raw.begin(), raw.end());
  }
  return success();
}

ElementsAttr ptec::exir::makeResourceElements(ShapedType type, StringRef key,
                                              ArrayRef<uint8_t> bytes) {
  ArrayRef<char> data(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  // Resource keys are bare identifiers in textual IR: keep [A-Za-z0-9_.].
  std::string safe = key.str();
  for (char &c : safe)
    if (!llvm::isAlnum(c) && c != '_' && c != '.')
      c = '_';
  return DenseResourceElementsAttr::get(
      type, safe, HeapAsmResourceBlob::allocateAndCopyWithAlign(data, 16));
}

Location ptec::exir::tagInputLoc(Location loc, StringRef file, StringRef method,
                                 int64_t debugHandle) {
  MLIRContext *ctx = loc.getContext();
  return tagInputLoc(loc, StringAttr::get(ctx, file), StringAttr::get(ctx, method),
                     debugHandle);
}

Location ptec::exir::tagInputLoc(Location loc, StringAttr file, StringAttr method,
                                 int64_t debugHandle) {
  MLIRContext *ctx = loc.getContext();
  SmallVector<Attribute, 3> tag{file, method};
  if (debugHandle > 0)
    tag.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), debugHandle));
  return FusedLoc::get({loc}, ArrayAttr::get(ctx, tag), ctx);
}

/// The tag of a tagInputLoc FusedLoc, or null.
static ArrayAttr inputTag(FusedLoc fused) {
  auto tag = llvm::dyn_cast_or_null<ArrayAttr>(fused.getMetadata());
  if (!tag || (tag.size() != 2 && tag.size() != 3) || !llvm::isa<StringAttr>(tag[0]) ||
      !llvm::isa<StringAttr>(tag[1]) || (tag.size() == 3 && !llvm::isa<IntegerAttr>(tag[2])))
    return nullptr;
  return tag;
}

void ptec::exir::collectTaggedNodes(Location loc, SmallVectorImpl<TaggedNode> &out) {
  std::string name;
  std::function<void(Location)> walk = [&](Location l) {
    if (auto n = llvm::dyn_cast<NameLoc>(l)) {
      name = n.getName().str();
      walk(n.getChildLoc());
    } else if (auto site = llvm::dyn_cast<CallSiteLoc>(l)) {
      walk(site.getCaller());
      walk(site.getCallee());
    } else if (auto fused = llvm::dyn_cast<FusedLoc>(l)) {
      ArrayAttr tag = inputTag(fused);
      if (tag && tag.size() == 3) {
        TaggedNode node;
        node.handle = llvm::cast<IntegerAttr>(tag[2]).getInt();
        node.name = name;
        for (Location inner : fused.getLocations())
          if (auto f = llvm::dyn_cast<FileLineColLoc>(inner); f && f.getLine() > 0)
            node.source = (f.getFilename().str() + ":" + std::to_string(f.getLine()));
        out.push_back(std::move(node));
        return;
      }
      for (Location inner : fused.getLocations())
        walk(inner);
    }
  };
  walk(loc);
}

SmallVector<int64_t> ptec::exir::debugHandlesOf(Location loc) {
  SmallVector<TaggedNode> nodes;
  collectTaggedNodes(loc, nodes);
  SmallVector<int64_t> handles;
  for (const TaggedNode &n : nodes)
    handles.push_back(n.handle);
  llvm::sort(handles);
  handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
  return handles;
}

std::optional<std::pair<std::string, std::string>>
ptec::exir::inputOfLoc(Location loc) {
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc)) {
    if (ArrayAttr tag = inputTag(fused))
      return std::make_pair(llvm::cast<StringAttr>(tag[0]).str(),
                            llvm::cast<StringAttr>(tag[1]).str());
    for (Location inner : fused.getLocations())
      if (auto found = inputOfLoc(inner))
        return found;
  } else if (auto name = llvm::dyn_cast<NameLoc>(loc)) {
    return inputOfLoc(name.getChildLoc());
  } else if (auto site = llvm::dyn_cast<CallSiteLoc>(loc)) {
    if (auto found = inputOfLoc(site.getCallee()))
      return found;
    return inputOfLoc(site.getCaller());
  }
  return std::nullopt;
}
