#pragma once
// Export of one conversation to Markdown (to read) and JSON (to keep or move), and import of that JSON.
// The JSON keeps everything, alternatives included, with ids local to the file; importing it creates
// a new conversation with new ids, and exporting that again gives the same bytes.
#include <QByteArray>
#include <QString>
#include <cstdint>
#include <stdexcept>

namespace trit::storage {

class ConversationStore;

inline constexpr const char* kExchangeFormat = "trit-conversation";
inline constexpr int kExchangeVersion = 1;

// A file that cannot be imported; the message says what is wrong and where.
class ExchangeError : public std::runtime_error {
 public:
  explicit ExchangeError(const QString& message) : std::runtime_error(message.toStdString()) {}
  QString message() const { return QString::fromStdString(what()); }
};

// Both throw ExchangeError if the conversation does not exist (or is deleted).
QString exportMarkdown(ConversationStore& store, std::int64_t conversationId);
QByteArray exportJson(ConversationStore& store, std::int64_t conversationId);

// Validates the whole file before writing anything; returns the new conversation id.
std::int64_t importJson(ConversationStore& store, const QByteArray& json);

}  // namespace trit::storage
