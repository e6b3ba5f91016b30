#include <trit/version.h>

namespace trit {
const char* version() {
  return TRIT_VERSION;
}
}  // namespace trit
