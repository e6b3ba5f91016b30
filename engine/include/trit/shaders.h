#pragma once
// SPIR-V of the shaders in shaders/, compiled at build time (cmake/TritShaders.cmake).
#include <cstdint>
#include <span>
#include <string_view>

namespace trit {
// The SPIR-V words of shaders/<name>.comp, or an empty span if there is no such shader.
std::span<const uint32_t> shader_spirv(std::string_view name);
}  // namespace trit
