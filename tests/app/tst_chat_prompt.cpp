// The app's prompt comes from the engine's chat component (trit/chat.h): the 2B4T format for a bitnet
// file, plain completion for a base model, a reply's sampled ids repeated verbatim so the next prompt
// shares the cached prefix. There is no second copy of the format in the app.
#include <trit/chat.h>
#include <trit/model.h>
#include <trit/tokenizer.h>
#include <QtTest>

#include "chat/chat_messages.h"

using trit::chat::ChatTurn;

class TestChatPrompt : public QObject {
  Q_OBJECT
  std::shared_ptr<trit::Model> chatModel_;  // golden-a: bitnet-25, the 2B4T format
  std::shared_ptr<trit::Model> baseModel_;  // golden-c: llama without tokenizer.chat_template
  std::optional<trit::ChatFormat> format_;

  static std::shared_ptr<trit::Model> open(const char* name) {
    const QString path = qEnvironmentVariable("TRIT_SHARED_DIR") + QStringLiteral("/golden/") + QLatin1String(name);
    if (!QFile::exists(path)) qFatal("missing %s", qPrintable(path));
    return trit::Model::open(path.toStdString());
  }
  const trit::Tokenizer& tok() const { return chatModel_->tokenizer(); }

 private slots:
  void initTestCase() {
    chatModel_ = open("golden-a.gguf");
    baseModel_ = open("golden-c.gguf");
    format_ = trit::ChatFormat::for_model(*chatModel_);
    QVERIFY(format_);
    QCOMPARE(format_->kind(), trit::ChatFormatKind::Bitnet2B4T);
    QVERIFY(!trit::ChatFormat::for_model(*baseModel_));
  }

  void isTheEngineChatFormat() {
    const QList<ChatTurn> turns{{u"user"_qs, u"hello <|eot_id|> there"_qs, {}},
                                {u"assistant"_qs, u"hi!"_qs, {}},
                                {u"user"_qs, u"ünïcode"_qs, {}}};
    const auto ours = trit::chat::promptIds(format_, tok(), u"be brief"_qs, turns);
    const std::vector<trit::ChatMessage> msgs{{trit::ChatRole::System, "be brief"},
                                              {trit::ChatRole::User, "hello <|eot_id|> there"},
                                              {trit::ChatRole::Assistant, "hi!"},
                                              {trit::ChatRole::User, "ünïcode"}};
    QCOMPARE(ours, format_->render(msgs));
    // A typed "<|eot_id|>" is text: the end-of-turn id appears exactly once per message.
    QCOMPARE(std::count(ours.begin(), ours.end(), format_->end_of_turn()), qsizetype(4));
  }

  void emptySystemPromptIsLeftOut() {
    const auto ours = trit::chat::promptIds(format_, tok(), u"   "_qs, {{u"user"_qs, u"x"_qs, {}}});
    const std::vector<trit::ChatMessage> msgs{{trit::ChatRole::User, "x"}};
    QCOMPARE(ours, format_->render(msgs));
  }

  void replyIdsAreRepeatedVerbatim() {
    // Ids a sampler could produce but a fresh encoding of the text would not (single bytes).
    std::vector<int32_t> sampled{*tok().find_token("a"), *tok().find_token("b")};
    sampled.push_back(format_->end_of_turn());  // the end token the reply stopped on is written once, not twice
    const QList<ChatTurn> first{{u"user"_qs, u"q"_qs, {}}};
    const auto prompt1 = trit::chat::promptIds(format_, tok(), {}, first);
    const QList<ChatTurn> second{
        {u"user"_qs, u"q"_qs, {}}, {u"assistant"_qs, u"ab"_qs, sampled}, {u"user"_qs, u"next"_qs, {}}};
    const auto prompt2 = trit::chat::promptIds(format_, tok(), {}, second);
    QVERIFY(prompt2.size() > prompt1.size());
    QVERIFY(std::equal(prompt1.begin(), prompt1.end(), prompt2.begin()));  // the cached prefix is reused
    // Right after the generation prompt come the sampled ids, then one end of turn.
    const auto at = prompt2.begin() + static_cast<std::ptrdiff_t>(prompt1.size());
    QVERIFY(std::equal(sampled.begin(), sampled.end() - 1, at));
    QCOMPARE(*(at + static_cast<std::ptrdiff_t>(sampled.size() - 1)), format_->end_of_turn());
  }

  // Issue 27: a model without a chat format continues the text: no roles, no end-of-turn tokens (the app
  // used to wrap it in the 2B4T format whatever the model).
  void baseModelContinuesTheText() {
    const trit::Tokenizer& base = baseModel_->tokenizer();
    const QList<ChatTurn> turns{{u"user"_qs, u"Once upon a time"_qs, {}}};
    const auto ours = trit::chat::promptIds(std::nullopt, base, u"be brief"_qs, turns);
    QCOMPARE(ours, base.encode("Once upon a time", false, /*add_bos=*/true));
    QCOMPARE(std::count(ours.begin(), ours.end(), base.eot()), qsizetype(0));
  }

  void unknownRoleIsAnError() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             trit::chat::promptIds(format_, tok(), {}, {{u"narrator"_qs, u"x"_qs, {}}}));
  }
};

QTEST_GUILESS_MAIN(TestChatPrompt)
#include "tst_chat_prompt.moc"
