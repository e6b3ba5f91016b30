#pragma once
// The sampling settings as they are stored outside the engine: in the settings file (AppSettings) and
// in each conversation's "sampling" object (export and import). Both are checked here, one way: the
// type (a number; a whole number where the engine takes an integer) and the range, which is the
// engine's own rule (trit::SamplingParams::validate()), so a stored value can never make a reply fail.
#include <QJsonObject>
#include <QString>
#include <QStringView>
#include <span>

namespace trit::chat {

inline constexpr int kMaxReplyTokens = 1 << 20;  // the longest reply a setting or import may ask for

struct SamplingField {
  const char* jsonKey;      // in a conversation's "sampling" object: "top_k"
  const char* settingsKey;  // in the settings file: "sampling/topK"; nullptr when not a setting
  bool whole;               // a whole number (the engine takes an int32)
  double defaultValue;      // the engine's default (the 2B4T chat defaults)
};

// temperature, top_k, top_p, min_p, repeat_penalty, repeat_last_n, max_tokens.
std::span<const SamplingField> samplingFields();
const SamplingField& samplingField(const char* jsonKey);  // one of the above, by its JSON key

// Why `value` cannot be `field`'s value, "" when it can: "must be a whole number (got 2.5)", or the
// engine's rule for this value with every other field at its default ("temperature must be >= 0 (got -5)").
QString samplingValueProblem(const SamplingField& field, double value);

// A conversation's "sampling" object: only known keys, each a JSON number that passes the above.
// "" when valid, else the problem of the first bad key, named in `key`.
QString samplingJsonProblem(const QJsonObject& sampling, QString* key);

}  // namespace trit::chat
