// Export to Markdown and JSON, and import of that JSON: a round trip is identical (new ids, same
// bytes on re-export), and malformed files are refused with an error that says what and where.
#include <QtTest>

#include "storage/conversation_exchange.h"
#include "storage/conversation_store.h"
#include "storage_test_support.h"

using namespace trit::storage;

namespace {

QByteArray readFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  return f.readAll();
}

QString sourceDir() {
  return qEnvironmentVariable("TRIT_SOURCE_DIR");
}

}  // namespace

class TestStorageExchange : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> dir_;
  std::unique_ptr<ConversationStore> store_;

  // A conversation with every kind of content: alternatives, stats, a system prompt, special characters.
  qint64 makeRichConversation() {
    const auto id = store_->createConversation(QStringLiteral("Rich \"title\""), QStringLiteral("Line 1\nLine 2"),
                                               QStringLiteral("bitnet"), QJsonObject{{QStringLiteral("top_p"), 0.95}});
    const auto q = store_->addMessage(id, 0, Role::User, QStringLiteral("Tabs\tand \u00fcnicode \U0001F600 <html>"));
    const auto r1 = store_->beginReply(id, q);
    store_->appendReplyText(r1, QStringLiteral("first try"));
    store_->finishReply(r1, ReplyStats{10, 2, 123.456789, 7.125, 0.5}, FinishReason::Cancelled);
    const auto r2 = store_->beginReply(id, q);
    store_->appendReplyText(r2, QStringLiteral("second try\n\n```cpp\nint x;\n```"));
    store_->finishReply(r2, ReplyStats{10, 9, 1e3, 1.0 / 3.0, 12}, FinishReason::Stop);
    store_->addMessage(id, r2, Role::User, QStringLiteral("next"));
    store_->addAlternative(q, QStringLiteral("edited question"));
    store_->selectAlternative(q);
    store_->setPinned(id, true);
    return id;
  }

 private slots:
  void init() {
    dir_ = test::scratchDir();
    store_ = std::make_unique<ConversationStore>(test::dbPathIn(*dir_));
  }
  void cleanup() {
    store_.reset();
    dir_.reset();
  }

  void jsonRoundTripIsIdentical() {
    const auto id = makeRichConversation();
    const QByteArray json = exportJson(*store_, id);
    const auto copy = importJson(*store_, json);
    QVERIFY(copy != id);
    QCOMPARE(exportJson(*store_, copy), json);  // byte for byte
    // The copy is the same conversation with new ids.
    const auto a = store_->allMessages(id);
    const auto b = store_->allMessages(copy);
    QCOMPARE(a.size(), b.size());
    for (int i = 0; i < a.size(); ++i) {
      QVERIFY(a[i].id != b[i].id);
      QCOMPARE(b[i].text, a[i].text);
      QCOMPARE(b[i].role, a[i].role);
      QCOMPARE(b[i].createdMs, a[i].createdMs);
      QCOMPARE(b[i].variantIndex, a[i].variantIndex);
      QCOMPARE(b[i].selected, a[i].selected);
      QCOMPARE(b[i].position, a[i].position);
      QCOMPARE(b[i].stats, a[i].stats);
      QCOMPARE(b[i].finish, a[i].finish);
    }
    const auto ca = *store_->conversation(id);
    const auto cb = *store_->conversation(copy);
    QCOMPARE(cb.title, ca.title);
    QCOMPARE(cb.createdMs, ca.createdMs);
    QCOMPARE(cb.updatedMs, ca.updatedMs);
    QCOMPARE(cb.pinned, ca.pinned);
    QCOMPARE(cb.systemPrompt, ca.systemPrompt);
    QCOMPARE(cb.model, ca.model);
    QCOMPARE(cb.sampling, ca.sampling);
    QCOMPARE(store_->thread(copy).size(), store_->thread(id).size());
    QCOMPARE(exportMarkdown(*store_, copy), exportMarkdown(*store_, id));
  }

  void sampleFileRoundTripsByteForByte() {
    const QByteArray sample =
        readFile(sourceDir() + QStringLiteral("/tests/app/storage_data/sample_conversation.json"));
    const auto id = importJson(*store_, sample);
    QCOMPARE(exportJson(*store_, id), sample);
    const auto thread = store_->thread(id);
    QCOMPARE(thread.size(), 4);
    QCOMPARE(thread[1].variantCount, 2);
    QCOMPARE(thread[1].message.variantIndex, 1);
    QCOMPARE(thread[3].message.finish, FinishReason::Interrupted);
  }

  void markdownReadsLikeTheChat() {
    const QByteArray sample =
        readFile(sourceDir() + QStringLiteral("/tests/app/storage_data/sample_conversation.json"));
    const auto id = importJson(*store_, sample);
    const QString md = exportMarkdown(*store_, id);
    const QString expected = QStringLiteral(
        "# Sample: ternary weights\n\n"
        "- Created: 2026-11-20 09:12 UTC\n"
        "- Last used: 2026-11-20 09:15 UTC\n"
        "- Model: bitnet-b1.58-2B-4T\n"
        "- Sampling: `{\"temperature\":0.7,\"top_k\":40,\"top_p\":0.9}`\n\n"
        "**System prompt**\n\n"
        "> You are a concise assistant.\n"
        "> Answer in English.\n\n"
        "## User\n\n"
        "What does \"ternary\" mean for weights?\n\n"
        "## Assistant\n\n"
        "*Version 2 of 2 (the JSON export keeps all of them)*\n\n"
        "Every weight is -1, 0 or +1 (about 1.58 bits).\n\n- No multiplications\n- Small files\n\n"
        "*18 prompt tokens, 41 generated \u00b7 prompt 405.0 tok/s \u00b7 generation 33.8 tok/s \u00b7 "
        "first token after 89 ms \u00b7 finished: stop*\n\n"
        "## User\n\n"
        "Thanks \u2014 <b>and</b> the activations?\n\n"
        "## Assistant\n\n"
        "Activations are quantized to 8 bits per token, with\n\n"
        "*finished: interrupted*\n");
    QCOMPARE(md, expected);
  }

  void exportOfMissingConversationFails() {
    try {
      exportJson(*store_, 4242);
      QFAIL("exported a conversation that does not exist");
    } catch (const ExchangeError& e) {
      QCOMPARE(e.message(), QStringLiteral("conversation 4242 does not exist"));
    }
  }

  void malformedFilesAreRefused_data() {
    QTest::addColumn<QString>("path");      // JSON pointer-ish edit applied to the sample
    QTest::addColumn<QByteArray>("value");  // the new value (JSON), or "DELETE"
    QTest::addColumn<QString>("error");

    QTest::newRow("wrong format") << "format" << QByteArray("\"chat\"")
                                  << "not a Trit conversation: \"format\" must be \"trit-conversation\"";
    QTest::newRow("newer version")
        << "version" << QByteArray("2")
        << "conversation format version 2 is newer than this Trit understands (1); update Trit to import it";
    QTest::newRow("missing title") << "title" << QByteArray("DELETE") << "conversation.title: missing";
    QTest::newRow("bad time") << "created" << QByteArray("\"yesterday\"")
                              << "conversation.created: \"yesterday\" is not a date and time (expected ISO 8601, like "
                                 "2026-01-31T12:00:00.000Z)";
    QTest::newRow("pinned not bool") << "pinned" << QByteArray("1") << "conversation.pinned: must be true or false";
    QTest::newRow("sampling not object") << "sampling" << QByteArray("[]")
                                         << "conversation.sampling: must be an object";
    QTest::newRow("messages not array") << "messages" << QByteArray("{}") << "conversation.messages: must be an array";
    QTest::newRow("bad role") << "messages/1/role" << QByteArray("\"robot\"")
                              << "messages[1].role: must be system, user or assistant, not \"robot\"";
    QTest::newRow("unknown parent")
        << "messages/3/parent" << QByteArray("9")
        << "messages[3].parent: 9 is not the id of an earlier message (parents must come before replies)";
    QTest::newRow("parent after child")
        << "messages/1/parent" << QByteArray("4")
        << "messages[1].parent: 4 is not the id of an earlier message (parents must come before replies)";
    QTest::newRow("duplicate id") << "messages/2/id" << QByteArray("2") << "messages[2].id: 2 is used twice";
    QTest::newRow("fractional id") << "messages/0/id" << QByteArray("1.5")
                                   << "messages[0].id: must be a whole number of at least 1";
    QTest::newRow("duplicate variant") << "messages/2/variant" << QByteArray("0")
                                       << "messages[2].variant: 0 is already used by another version of this message";
    QTest::newRow("two selected") << "messages/1/selected" << QByteArray("true")
                                  << "messages[2].selected: another version of this message is already selected";
    QTest::newRow("bad finish")
        << "messages/2/finishReason" << QByteArray("\"done\"")
        << "messages[2].finishReason: must be stop, length, cancelled, error or interrupted, not \"done\"";
    QTest::newRow("reply without finish")
        << "messages/2/finishReason" << QByteArray("DELETE") << "messages[2].finishReason: missing";
    QTest::newRow("user with finish") << "messages/0/finishReason" << QByteArray("\"stop\"")
                                      << "messages[0].finishReason: only replies (role assistant) have one";
    QTest::newRow("negative speed") << "messages/2/stats/promptTokensPerSecond" << QByteArray("-1")
                                    << "messages[2].stats.promptTokensPerSecond: must be a number, 0 or more";
    QTest::newRow("text not string") << "messages/4/text" << QByteArray("null") << "messages[4].text: must be a string";
    // Issue 30 #7: values that were silently changed (2^32 stored as 0, 2^31 as -2^31) or stored as given.
    QTest::newRow("variant 2^32")
        << "messages/2/variant" << QByteArray("4294967296")
        << "messages[2].variant: must be a whole number from 0 to 2147483647 (got 4294967296)";
    QTest::newRow("variant 2^31")
        << "messages/2/variant" << QByteArray("2147483648")
        << "messages[2].variant: must be a whole number from 0 to 2147483647 (got 2147483648)";
    QTest::newRow("negative temperature") << "sampling/temperature" << QByteArray("-5")
                                          << "conversation.sampling.temperature: temperature must be >= 0 (got -5)";
    QTest::newRow("top_k not a number") << "sampling/top_k" << QByteArray("\"x\"")
                                        << "conversation.sampling.top_k: must be a number, not \"x\"";
    QTest::newRow("top_k fractional") << "sampling/top_k" << QByteArray("2.5")
                                      << "conversation.sampling.top_k: must be a whole number (got 2.5)";
    QTest::newRow("top_k 2^32") << "sampling/top_k" << QByteArray("4294967296")
                                << "conversation.sampling.top_k: must be a whole number (got 4294967296)";
    QTest::newRow("top_p zero") << "sampling/top_p" << QByteArray("0")
                                << "conversation.sampling.top_p: top-p must be in (0, 1] (got 0)";
    QTest::newRow("max_tokens zero")
        << "sampling/max_tokens" << QByteArray("0")
        << "conversation.sampling.max_tokens: max tokens must be from 1 to 1048576 (got 0)";
    QTest::newRow("unknown sampling key") << "sampling/seed" << QByteArray("1")
                                          << "conversation.sampling.seed: not a sampling setting (known: temperature, "
                                             "top_k, top_p, min_p, repeat_penalty, repeat_last_n, max_tokens)";
    QTest::newRow("message not object") << "messages/4" << QByteArray("\"hi\"") << "messages[4]: must be an object";
  }

  void malformedFilesAreRefused() {
    QFETCH(QString, path);
    QFETCH(QByteArray, value);
    QFETCH(QString, error);
    const QByteArray sample =
        readFile(sourceDir() + QStringLiteral("/tests/app/storage_data/sample_conversation.json"));
    // Apply the edit through QJsonValue references, one level at a time.
    QJsonObject root = QJsonDocument::fromJson(sample).object();
    const QStringList keys = path.split(QLatin1Char('/'));
    const QJsonValue replacement = value == "DELETE" ? QJsonValue(QJsonValue::Undefined)
                                                     : QJsonDocument::fromJson("[" + value + "]").array().at(0);
    std::function<QJsonValue(QJsonValue, int)> edit = [&](QJsonValue node, int depth) -> QJsonValue {
      const QString& key = keys[depth];
      const bool last = depth == keys.size() - 1;
      if (node.isArray()) {
        QJsonArray a = node.toArray();
        const int i = key.toInt();
        a[i] = last ? replacement : edit(a[i], depth + 1);
        return a;
      }
      QJsonObject o = node.toObject();
      if (last && replacement.isUndefined())
        o.remove(key);
      else
        o[key] = last ? replacement : edit(o[key], depth + 1);
      return o;
    };
    root = edit(root, 0).toObject();
    const int before = store_->conversationCount();
    try {
      importJson(*store_, QJsonDocument(root).toJson());
      QFAIL("imported a malformed file");
    } catch (const ExchangeError& e) {
      QCOMPARE(e.message(), error);
    }
    QCOMPARE(store_->conversationCount(), before);  // nothing half-written
  }

  // JSON can spell a lone surrogate, which the store would have turned into U+FFFD (found by
  // conversation_fuzz): the file is refused, naming the field and the place.
  void loneSurrogatesAreRefused() {
    QByteArray sample = readFile(sourceDir() + QStringLiteral("/tests/app/storage_data/sample_conversation.json"));
    const QByteArray text = "\"What does \\\"ternary\\\" mean for weights?\"";
    QVERIFY(sample.contains(text));
    const std::pair<QByteArray, QString> cases[] = {
        {"\"What \\ud800 does\"", QStringLiteral("\\ud800")},     // a high surrogate alone
        {"\"What \\udc00\\ud800\"", QStringLiteral("\\udc00")}};  // a low one before a high one
    for (const auto& [bad, unit] : cases) {
      const int before = store_->conversationCount();
      try {
        importJson(*store_, QByteArray(sample).replace(text, bad));
        QFAIL("imported a lone surrogate");
      } catch (const ExchangeError& e) {
        QCOMPARE(e.message(), QStringLiteral("messages[0].text: holds a lone UTF-16 surrogate (%1) at character 5, "
                                             "which is not valid Unicode")
                                  .arg(unit));
      }
      QCOMPARE(store_->conversationCount(), before);
    }
    // A pair (an emoji spelled as two escapes) is text like any other.
    const QByteArray emoji = QByteArray(sample).replace(text, "\"What \\ud83d\\ude00 does\"");
    const auto id = importJson(*store_, emoji);
    QVERIFY(exportJson(*store_, id).contains("What \xf0\x9f\x98\x80 does"));
  }

  void syntaxErrorsSayWhere() {
    try {
      importJson(*store_, "{\n  \"format\": \"trit-conversation\",\n  \"version\": 1,,\n}");
      QFAIL("imported broken JSON");
    } catch (const ExchangeError& e) {
      QVERIFY2(e.message().startsWith(QStringLiteral("not valid JSON at line 3, column")), qPrintable(e.message()));
    }
    try {
      importJson(*store_, "[1, 2]");
      QFAIL("imported an array");
    } catch (const ExchangeError& e) {
      QCOMPARE(e.message(), QStringLiteral("the file must hold one JSON object (a conversation)"));
    }
  }
};

QTEST_GUILESS_MAIN(TestStorageExchange)
#include "tst_storage_exchange.moc"
