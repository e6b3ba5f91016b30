#pragma once

namespace trit {
// The project version (CMakeLists.txt's project() is the one place it is set).
const char* version();
}  // namespace trit
