// The app's prompt builder agrees with the engine's 2B4T chat format, and repeats a reply's sampled
// ids verbatim so the next prompt shares the cached prefix.
#include <QtTest>
#include <trit/chat.h>
#include <trit/model.h>
#include <trit/tokenizer.h>

#include "chat/chat_prompt.h"

using trit::chat::ChatTurn;

class TestChatPrompt : public QObject {
  Q_OBJECT
  std::shared_ptr<trit::Model> model_;
  std::unique_ptr<trit::Tokenizer> tok_;

 private slots:
  void initTestCase() {
    const QString path = qEnvironmentVariable("TRIT_SHARED_DIR") + QStringLiteral("/golden/golden-a.gguf");
    QVERIFY2(QFile::exists(path), qPrintable(path));
    model_ = trit::Model::open(path.toStdString());
    tok_ = std::make_unique<trit::Tokenizer>(trit::Tokenizer::from_gguf(model_->file()));
  }

  void matchesTheEngineChatFormat() {
    const QList<ChatTurn> turns{{u"user"_qs, u"hello <|eot_id|> there"_qs, {}},
                                {u"assistant"_qs, u"hi!"_qs, {}},
                                {u"user"_qs, u"ünïcode"_qs, {}}};
    const auto ours = trit::chat::buildChatPrompt(*tok_, u"be brief"_qs, turns);
    const std::vector<trit::ChatMessage> msgs{{trit::ChatRole::System, "be brief"},
                                              {trit::ChatRole::User, "hello <|eot_id|> there"},
                                              {trit::ChatRole::Assistant, "hi!"},
                                              {trit::ChatRole::User, "ünïcode"}};
    QCOMPARE(ours, trit::chat_prompt_ids(*tok_, msgs));
    // A typed "<|eot_id|>" is text: the end-of-turn id appears exactly once per message.
    QCOMPARE(std::count(ours.begin(), ours.end(), tok_->eot()), qsizetype(4));
  }

  void emptySystemPromptIsLeftOut() {
    const auto ours = trit::chat::buildChatPrompt(*tok_, u"   "_qs, {{u"user"_qs, u"x"_qs, {}}});
    const std::vector<trit::ChatMessage> msgs{{trit::ChatRole::User, "x"}};
    QCOMPARE(ours, trit::chat_prompt_ids(*tok_, msgs));
  }

  void replyIdsAreRepeatedVerbatim() {
    // Ids a sampler could produce but a fresh encoding of the text would not (single bytes).
    std::vector<int32_t> sampled = tok_->encode("ab");
    sampled.push_back(tok_->eot());  // the end token the reply stopped on is written once, not twice
    const QList<ChatTurn> first{{u"user"_qs, u"q"_qs, {}}};
    const auto prompt1 = trit::chat::buildChatPrompt(*tok_, {}, first);
    const QList<ChatTurn> second{{u"user"_qs, u"q"_qs, {}}, {u"assistant"_qs, u"ab"_qs, sampled},
                                 {u"user"_qs, u"next"_qs, {}}};
    const auto prompt2 = trit::chat::buildChatPrompt(*tok_, {}, second);
    QVERIFY(prompt2.size() > prompt1.size());
    QVERIFY(std::equal(prompt1.begin(), prompt1.end(), prompt2.begin()));  // the cached prefix is reused
    // Right after the generation prompt come the sampled ids, then one end of turn.
    const auto at = prompt2.begin() + static_cast<std::ptrdiff_t>(prompt1.size());
    QVERIFY(std::equal(sampled.begin(), sampled.end() - 1, at));
    QCOMPARE(*(at + static_cast<std::ptrdiff_t>(sampled.size() - 1)), tok_->eot());
  }

  void unknownRoleIsAnError() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             trit::chat::buildChatPrompt(*tok_, {}, {{u"narrator"_qs, u"x"_qs, {}}}));
  }
};

QTEST_GUILESS_MAIN(TestChatPrompt)
#include "tst_chat_prompt.moc"
