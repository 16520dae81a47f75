// EValue: one entry of a method's values table. Lists are boxed like the .pte
// format: an IntList / TensorList holds pointers to other EValues, read when a
// kernel runs; DoubleList and BoolList hold their items inline.
#pragma once

#include "runtime/core/Span.h"
#include "runtime/core/Tensor.h"

#include <cstdint>

namespace ptec::rt {

class EValue {
public:
  enum class Tag : uint8_t {
    None,
    Int,
    Double,
    Bool,
    String,
    Tensor,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    OptionalTensorList,
  };

  EValue() : tag_(Tag::None) { u_.i = 0; }
  static EValue fromInt(int64_t v) { EValue e; e.tag_ = Tag::Int; e.u_.i = v; return e; }
  static EValue fromDouble(double v) { EValue e; e.tag_ = Tag::Double; e.u_.d = v; return e; }
  static EValue fromBool(bool v) { EValue e; e.tag_ = Tag::Bool; e.u_.b = v; return e; }
  static EValue fromString(const char *s, size_t n) { EValue e; e.tag_ = Tag::String; e.u_.str = {s, n}; return e; }
  static EValue fromTensor(Tensor *t) { EValue e; e.tag_ = Tag::Tensor; e.u_.t = t; return e; }
  /// Elements are pointers to Int EValues.
  static EValue fromIntList(Span<EValue *const> items) { return list(Tag::IntList, items); }
  /// Elements are pointers to Tensor EValues.
  static EValue fromTensorList(Span<EValue *const> items) { return list(Tag::TensorList, items); }
  /// Elements are pointers to Tensor EValues, or nullptr for None.
  static EValue fromOptionalTensorList(Span<EValue *const> items) { return list(Tag::OptionalTensorList, items); }
  static EValue fromDoubleList(Span<const double> items) { EValue e; e.tag_ = Tag::DoubleList; e.u_.dl = items; return e; }
  static EValue fromBoolList(Span<const uint8_t> items) { EValue e; e.tag_ = Tag::BoolList; e.u_.bl = items; return e; }

  Tag tag() const { return tag_; }
  bool isNone() const { return tag_ == Tag::None; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isString() const { return tag_ == Tag::String; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isIntList() const { return tag_ == Tag::IntList; }
  bool isDoubleList() const { return tag_ == Tag::DoubleList; }
  bool isBoolList() const { return tag_ == Tag::BoolList; }
  bool isTensorList() const { return tag_ == Tag::TensorList; }
  bool isOptionalTensorList() const { return tag_ == Tag::OptionalTensorList; }
  /// Int, Double or Bool: a "Scalar" argument.
  bool isScalar() const { return isInt() || isDouble() || isBool(); }

  int64_t toInt() const { return u_.i; }
  double toDouble() const { return u_.d; }
  bool toBool() const { return u_.b; }
  /// Scalar as double (Int/Bool converted).
  double scalarAsDouble() const {
    return isDouble() ? u_.d : isBool() ? (u_.b ? 1.0 : 0.0) : static_cast<double>(u_.i);
  }
  const char *stringData() const { return u_.str.data; }
  size_t stringSize() const { return u_.str.size; }
  Tensor &toTensor() const { return *u_.t; }
  Tensor *tensorPtr() const { return tag_ == Tag::Tensor ? u_.t : nullptr; }
  /// Boxed elements of IntList / TensorList / OptionalTensorList.
  Span<EValue *const> listItems() const { return u_.list; }
  Span<const double> doubleList() const { return u_.dl; }
  Span<const uint8_t> boolList() const { return u_.bl; }

  /// Element i of an IntList (the boxed Int it points to).
  int64_t intListAt(size_t i) const { return u_.list[i]->toInt(); }
  size_t listSize() const {
    switch (tag_) {
    case Tag::DoubleList: return u_.dl.size();
    case Tag::BoolList: return u_.bl.size();
    default: return u_.list.size();
    }
  }

private:
  static EValue list(Tag tag, Span<EValue *const> items) {
    EValue e;
    e.tag_ = tag;
    e.u_.list = items;
    return e;
  }
  struct StrRef {
    const char *data;
    size_t size;
  };
  Tag tag_;
  union U {
    U() : i(0) {}
    int64_t i;
    double d;
    bool b;
    StrRef str;
    Tensor *t;
    Span<EValue *const> list;
    Span<const double> dl;
    Span<const uint8_t> bl;
  } u_;
};

} // namespace ptec::rt
