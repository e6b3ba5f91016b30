#include "download_types.h"

#include <cmath>

namespace trit::models {

QString formatBytes(qint64 bytes) {
  if (bytes < 1024) return QStringLiteral("%1 B").arg(bytes);
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 2 : 1).arg(QLatin1String(units[unit]));
}

QString formatParameters(qint64 count) {
  if (count <= 0) return {};
  if (count < 1000) return QString::number(count);
  static const char* const units[] = {"K", "M", "B", "T"};
  double value = static_cast<double>(count);
  for (int unit = 0;; ++unit) {
    value /= 1000;
    // One decimal below 100 ("2.4 B"), none above ("125 M"); 999.5 M reads as "1.0 B", not "1000 M".
    const int decimals = value < 99.95 ? 1 : 0;
    const double shown = decimals ? std::round(value * 10) / 10 : std::round(value);
    if (shown < 1000 || unit == 3)
      return QStringLiteral("%1 %2").arg(value, 0, 'f', decimals).arg(QLatin1String(units[unit]));
  }
}

QString formatDuration(qint64 seconds) {
  if (seconds < 0) return QStringLiteral("unknown");
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds);
  if (seconds < 3600) return QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
  return QStringLiteral("%1 h %2 min").arg(seconds / 3600).arg((seconds % 3600) / 60);
}

}  // namespace trit::models
