#pragma once
// Messages are built from parts that may or may not end a sentence (the engine's text, Qt's error
// strings, our own sentences): asSentence() ends one with exactly one full stop, so no message reads
// "...refused.." or runs into the next sentence without one.
#include <QString>

namespace trit {

inline QString asSentence(QString text) {
  text = text.trimmed();
  if (!text.isEmpty() && !text.endsWith(QLatin1Char('.')) && !text.endsWith(QLatin1Char('!')) &&
      !text.endsWith(QLatin1Char('?')))
    text += QLatin1Char('.');
  return text;
}

}  // namespace trit
