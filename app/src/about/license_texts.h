#pragma once
// The licence texts of resources/licenses/, compiled in (packaging/licenses.cmake generates the data
// from those files at configure time, so the files stay the single copy of each text).
#include <span>

namespace trit::about {

struct LicenseText {
  const char* title;  // what the dialog's tab says
  const char* file;   // the file name under resources/licenses/ and share/doc/trit/
  const char* text;   // UTF-8
};

// Trit's own licence first, then the model's, then the third-party notices.
std::span<const LicenseText> licenseTexts();

}  // namespace trit::about
