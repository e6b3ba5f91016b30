#pragma once
// Workgroups (or tiles) needed to cover `a` items `b` at a time: one helper for every kernel's dispatch
// (the files that each kept a copy could not share a unity build's translation unit).
#include <cstdint>

namespace trit::vk {

constexpr uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

}  // namespace trit::vk
