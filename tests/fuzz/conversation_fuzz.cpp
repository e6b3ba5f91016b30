// libFuzzer target: conversation import (app/src/storage/conversation_exchange.cpp) on arbitrary
// bytes, into a real store. An exported conversation is a file a user may be sent, so it is hostile
// input. Built with clang against Qt and SQLite (tests/fuzz/CMakeLists.txt), run for a bounded time
// as the CTest test conversation_fuzz. Besides crashes and sanitizer reports it checks what the
// exchange format promises (conversation_exchange.h):
// - a file that cannot be imported gets an ExchangeError with a message and writes nothing;
// - one that imports keeps every message's role, text and variant exactly (nothing wrapped or
//   rounded), holds only sampling settings a reply can run with, and its export imports and exports
//   again to the same bytes.
#include <QByteArray>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "settings/sampling_fields.h"
#include "storage/conversation_exchange.h"
#include "storage/conversation_store.h"

namespace {

std::unique_ptr<trit::storage::ConversationStore> g_store;

[[noreturn]] void fail(const char* what, const QString& detail = {}) {
  std::fprintf(stderr, "conversation_fuzz: %s %s\n", what, detail.toUtf8().constData());
  std::abort();
}

// Each message as "role|variant|text", sorted: what an import must keep, whatever the ids.
QStringList messageKeys(const QByteArray& json) {
  QStringList keys;
  for (const QJsonValue m : QJsonDocument::fromJson(json).object().value(QStringLiteral("messages")).toArray()) {
    const QJsonObject o = m.toObject();
    keys << o.value(QStringLiteral("role")).toString() + QLatin1Char('|') +
                QString::number(o.value(QStringLiteral("variant")).toDouble(), 'g', 17) + QLatin1Char('|') +
                o.value(QStringLiteral("text")).toString();
  }
  keys.sort();
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // One database for the whole run, in a fresh folder (TRIT_TEST_TMP from the test environment).
  const QString dir =
      QDir(qEnvironmentVariable("TRIT_TEST_TMP", QDir::tempPath())).filePath(QStringLiteral("conversation_fuzz_db"));
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);
  g_store = std::make_unique<trit::storage::ConversationStore>(QDir(dir).filePath(QStringLiteral("fuzz.db")));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit::storage;
  ConversationStore& store = *g_store;
  const QByteArray json(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
  const int before = store.conversationCount();
  std::int64_t id = 0;
  try {
    id = importJson(store, json);
  } catch (const ExchangeError& e) {
    if (e.message().isEmpty()) fail("an import was refused without a message");
    if (store.conversationCount() != before) fail("a refused import wrote a conversation", e.message());
    return 0;
  }
  if (store.conversationCount() != before + 1) fail("an import did not add exactly one conversation");
  const QByteArray first = exportJson(store, id);
  if (messageKeys(first) != messageKeys(json)) fail("an import changed a message's role, text or variant");
  QString key;
  const QJsonObject sampling = QJsonDocument::fromJson(first).object().value(QStringLiteral("sampling")).toObject();
  if (const QString problem = trit::chat::samplingJsonProblem(sampling, &key); !problem.isEmpty())
    fail("an import kept sampling settings a reply would fail on:", key + QStringLiteral(": ") + problem);
  std::int64_t again = 0;
  try {
    again = importJson(store, first);
  } catch (const ExchangeError& e) {
    fail("an exported conversation does not import:", e.message());
  }
  if (exportJson(store, again) != first) fail("import and export again changed the conversation");
  store.purgeConversation(id);
  store.purgeConversation(again);
  return 0;
}
