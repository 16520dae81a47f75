#include "runtime/executor/DimOrderCheck.h"

namespace ptec::rt {

std::string dimOrderString(const Tensor &t) {
  std::string s = "[";
  for (size_t i = 0; i < t.dimOrder().size(); ++i)
    s += (i ? ", " : "") + std::to_string(t.dimOrder()[i]);
  return s + "]";
}

namespace {

/// Calls f(valueIndex, tensor) for each tensor argument, list elements
/// included; stops when f returns false.
template <typename F> bool forEachTensor(Span<EValue *const> args, const EValue *values, F &&f) {
  for (EValue *a : args) {
    if (a == nullptr)
      continue;
    if (a->isTensor()) {
      if (!f(static_cast<size_t>(a - values), a->toTensor()))
        return false;
    } else if (a->isTensorList() || a->isOptionalTensorList()) {
      for (EValue *e : a->listItems())
        if (e != nullptr && e->isTensor() && !f(static_cast<size_t>(e - values), e->toTensor()))
          return false;
    }
  }
  return true;
}

} // namespace

bool kernelAcceptsDimOrders(DimOrderSupport support, Span<EValue *const> args,
                            const EValue *values, std::string *why) {
  switch (support) {
  case DimOrderSupport::Any:
    return true;
  case DimOrderSupport::Contiguous:
    return forEachTensor(args, values, [&](size_t v, const Tensor &t) {
      if (t.isContiguous())
        return true;
      *why = "value " + std::to_string(v) + " has dim_order " + dimOrderString(t) +
             "; this kernel handles only contiguous tensors (dim_order 0..n-1)";
      return false;
    });
  case DimOrderSupport::SameDimOrder: {
    // Upstream's rule: all contiguous, or all channels-last.
    bool allContiguous = true, allChannelsLast = true;
    size_t firstValue = 0, badValue = 0;
    const Tensor *first = nullptr, *bad = nullptr;
    forEachTensor(args, values, [&](size_t v, const Tensor &t) {
      if (first == nullptr) {
        first = &t;
        firstValue = v;
      }
      allContiguous = allContiguous && t.isContiguous();
      allChannelsLast = allChannelsLast && t.isChannelsLast();
      if (!allContiguous && !allChannelsLast && bad == nullptr) {
        bad = &t;
        badValue = v;
      }
      return bad == nullptr;
    });
    if (bad == nullptr)
      return true;
    if (bad == first) // a single tensor with an order that is neither
      *why = "value " + std::to_string(badValue) + " has dim_order " + dimOrderString(*bad) +
             "; this kernel handles contiguous or channels-last tensors only";
    else
      *why = "value " + std::to_string(badValue) + " has dim_order " + dimOrderString(*bad) +
             " but value " + std::to_string(firstValue) + " has " + dimOrderString(*first) +
             "; this kernel needs all tensors contiguous or all channels-last";
    return false;
  }
  }
  return false;
}

} // namespace ptec::rt
