// The chat formats (trit/chat.h) with the real LLaMA 3 vocabulary. Expected ids come from the JavaScript
// reference tokenizer (@lenml/tokenizers, a port of transformers.js) encoding the text each real template
// renders, as a Hugging Face tokenizer does; template texts are quoted from the models' tokenizer_config.json.
#include <gtest/gtest.h>

#include <fstream>

#include "gguf_test_builder.h"
#include "test_support.h"
#include "tokenizer_fixture.h"
#include "trit/chat.h"
#include "trit/model.h"
#include "trit/tokenizer.h"

namespace {

using trit::ChatFormat;
using trit::ChatFormatKind;
using trit::ChatMessage;
using trit::ChatRole;
using Ids = std::vector<int32_t>;

const trit::Tokenizer& llama3() {
  static const trit::Tokenizer t(trit::test::llama3_vocab());
  return t;
}

// The LLaMA 3 vocabulary with some of its reserved special tokens renamed to the markers of ChatML and
// Falcon3, and <|endoftext|> as EOS: a vocabulary where those markers are control tokens.
constexpr int32_t kImStart = 128011, kImEnd = 128012, kSystem = 128013, kUser = 128014, kAssistant = 128015,
                  kEndOfText = 128016;
const trit::Tokenizer& marked() {
  static const trit::Tokenizer t = [] {
    trit::TokenizerVocab v = trit::test::llama3_vocab();
    const std::pair<int32_t, const char*> renames[] = {{kImStart, "<|im_start|>"},    {kImEnd, "<|im_end|>"},
                                                       {kSystem, "<|system|>"},       {kUser, "<|user|>"},
                                                       {kAssistant, "<|assistant|>"}, {kEndOfText, "<|endoftext|>"}};
    for (auto [id, text] : renames) {
      EXPECT_EQ(v.tokens[static_cast<size_t>(id)].rfind("<|reserved_special_token_", 0), 0u) << id;
      v.tokens[static_cast<size_t>(id)] = text;
    }
    v.eos = kEndOfText;
    v.eot = -1;
    return trit::Tokenizer(v);
  }();
  return t;
}

// Quoted from the templates the models ship (Jinja string escapes kept: "\n" is backslash-n).
const char* kLlama3Template =
    R"({% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %})";
// Falcon3-*-Instruct (and the 1.58-bit ones), the branch without tools.
const char* kFalcon3Template = R"({%- if tools %}
{{- '<|system|>\n' }}
{%- else %}
{%- for message in messages %}
{%- if message['role'] == 'system' %}
{{- '<|system|>\n' + message['content'] + '\n' }}
{%- elif message['role'] == 'user' %}
{{- '<|user|>\n' + message['content'] + '\n' }}
{%- elif message['role'] == 'assistant' %}
{%- if not loop.last %}
{{- '<|assistant|>\n' + message['content'] + eos_token + '\n' }}
{%- else %}
{{- '<|assistant|>\n' + message['content'] + eos_token }}
{%- endif %}
{%- endif %}
{%- if loop.last and add_generation_prompt %}
{{- '<|assistant|>\n' }}
{%- endif %}
{%- endfor %}
{%- endif %})";
const char* kChatMLTemplate =
    R"({% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %})";
// Zephyr: the same markers as Falcon3, but every message ends with EOS: another format.
const char* kZephyrTemplate =
    R"({% for message in messages %}{% if message['role'] == 'user' %}{{ '<|user|>\n' + message['content'] + eos_token + '\n' }}{% elif message['role'] == 'assistant' %}{{ '<|assistant|>\n' + message['content'] + eos_token + '\n' }}{% else %}{{ '<|system|>\n' + message['content'] + eos_token + '\n' }}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %})";
const char* kMistralTemplate =
    R"({{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% endif %}{% endfor %})";

const std::vector<ChatMessage> kTwoTurns{{ChatRole::System, "Be brief."},
                                         {ChatRole::User, "What is 1+1?"},
                                         {ChatRole::Assistant, "2."},
                                         {ChatRole::User, "And 2+2?"}};

// ---- recognition ----

TEST(ChatTemplate, RecognisesEachKnownTemplateByContent) {
  EXPECT_EQ(trit::recognise_chat_template(kLlama3Template), ChatFormatKind::Llama3);
  EXPECT_EQ(trit::recognise_chat_template(kFalcon3Template), ChatFormatKind::Falcon3);
  EXPECT_EQ(trit::recognise_chat_template(kChatMLTemplate), ChatFormatKind::ChatML);
  // Not an exact match: laid out differently, or with more around it, still recognised.
  std::string reflowed = kChatMLTemplate;
  for (size_t at = 0; (at = reflowed.find("}{", at)) != std::string::npos;) reflowed.replace(at, 2, "}\n  {");
  EXPECT_EQ(trit::recognise_chat_template("{# custom #}" + reflowed), ChatFormatKind::ChatML);
}

TEST(ChatTemplate, UnknownOrAbsentTemplateIsABaseModel) {
  EXPECT_EQ(trit::recognise_chat_template(""), ChatFormatKind::Base);
  EXPECT_EQ(trit::recognise_chat_template(kZephyrTemplate), ChatFormatKind::Base);
  EXPECT_EQ(trit::recognise_chat_template(kMistralTemplate), ChatFormatKind::Base);
  EXPECT_EQ(trit::recognise_chat_template("{{ messages }}"), ChatFormatKind::Base);
  EXPECT_EQ(trit::chat_format_kind("llama", ""), ChatFormatKind::Base);
}

TEST(ChatTemplate, BitnetFilesAlwaysUseThe2B4TFormat) {
  // The published 2B4T GGUF's template is a broken placeholder; even a recognisable one is not used.
  for (const char* arch : {"bitnet-25", "bitnet-b1.58"}) {
    EXPECT_EQ(trit::chat_format_kind(arch, ""), ChatFormatKind::Bitnet2B4T) << arch;
    EXPECT_EQ(trit::chat_format_kind(arch, kChatMLTemplate), ChatFormatKind::Bitnet2B4T) << arch;
  }
  EXPECT_EQ(trit::chat_format_kind("llama", kLlama3Template), ChatFormatKind::Llama3);
}

TEST(ChatTemplate, ModelFilesGiveTheirFormat) {
  auto golden_a = trit::Model::open(trit::test::shared_dir() / "golden" / "golden-a.gguf");
  ASSERT_TRUE(ChatFormat::for_model(*golden_a));
  EXPECT_EQ(ChatFormat::for_model(*golden_a)->kind(), ChatFormatKind::Bitnet2B4T);
  auto golden_c = trit::Model::open(trit::test::shared_dir() / "golden" / "golden-c.gguf");  // llama, no template
  EXPECT_EQ(trit::chat_format_kind(*golden_c), ChatFormatKind::Base);
  EXPECT_FALSE(ChatFormat::for_model(*golden_c));

  // A llama file with the Llama 3 template: its tokenizer.chat_template is read and recognised.
  trit::test::TinySpec s;
  s.arch = "llama";
  s.sub_norms = false;
  s.vocab = trit::test::kTinyByteVocab + 2;
  auto bytes = trit::test::tiny_model(s).str("tokenizer.chat_template", kLlama3Template).build();
  const auto path = trit::test::scratch_dir("ChatTemplateModelFiles") / "llama3.gguf";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  auto model = trit::Model::open(path);
  auto format = ChatFormat::for_model(*model);
  ASSERT_TRUE(format);
  EXPECT_EQ(format->kind(), ChatFormatKind::Llama3);
  EXPECT_EQ(format->end_of_turn(), *model->tokenizer().find_token("<|eot_id|>"));
}

// ---- each format: ids of a two-turn conversation ----

TEST(ChatFormat2B4T, MultiTurnWithSystemPrompt) {
  const ChatFormat f(ChatFormatKind::Bitnet2B4T, llama3());
  // JS: encode("<|begin_of_text|>System: Be brief.<|eot_id|>User: What is 1+1?<|eot_id|>"
  //            "Assistant: 2.<|eot_id|>User: And 2+2?<|eot_id|>Assistant: ")
  const Ids expected{128000, 2374, 25,   2893, 10015, 13,     128009,                      // System: Be brief.
                     1502,   25,   3639, 374,  220,   16,     10,     16, 30,     128009,  // User: What is 1+1?
                     72803,  25,   220,  17,   13,    128009,                              // Assistant: 2.
                     1502,   25,   1628, 220,  17,    10,     17,     30, 128009,          // User: And 2+2?
                     72803,  25,   220};                                                   // Assistant:
  EXPECT_EQ(f.render(kTwoTurns), expected);
  EXPECT_EQ(f.render_text(kTwoTurns),
            "<|begin_of_text|>System: Be brief.<|eot_id|>User: What is 1+1?<|eot_id|>"
            "Assistant: 2.<|eot_id|>User: And 2+2?<|eot_id|>Assistant: ");
  EXPECT_EQ(llama3().encode(f.render_text(kTwoTurns), true), expected);
  EXPECT_EQ(f.end_of_turn(), 128009);
}

TEST(ChatFormat2B4T, NoSystemPromptAndNoGenerationPrompt) {
  const ChatFormat f(ChatFormatKind::Bitnet2B4T, llama3());
  std::vector<ChatMessage> chat{{ChatRole::User, "Hello!"}};
  EXPECT_EQ(f.render(chat), (Ids{128000, 1502, 25, 22691, 0, 128009, 72803, 25, 220}));
  EXPECT_EQ(f.render(chat, false), (Ids{128000, 1502, 25, 22691, 0, 128009}));
  EXPECT_EQ(f.render({}), (Ids{128000, 72803, 25, 220}));
  // An empty system prompt means none (the app and the CLI share this rule).
  std::vector<ChatMessage> blank{{ChatRole::System, " \n "}, {ChatRole::User, "Hello!"}};
  EXPECT_EQ(f.render(blank), f.render(chat));
}

TEST(ChatFormatLlama3, TwoTurnsAsTheRealTemplateRenders) {
  const ChatFormat f(ChatFormatKind::Llama3, llama3(), kLlama3Template);
  // JS: encode of the template's rendering of kTwoTurns with the generation prompt.
  const Ids expected{128000, 128006, 9125, 128007, 271, 3513,   10015,  13,    128009, 128006, 882,
                     128007, 271,    3923, 374,    220, 16,     10,     16,    30,     128009, 128006,
                     78191,  128007, 271,  17,     13,  128009, 128006, 882,   128007, 271,    3112,
                     220,    17,     10,   17,     30,  128009, 128006, 78191, 128007, 271};
  EXPECT_EQ(f.render(kTwoTurns), expected);
  EXPECT_EQ(llama3().encode(f.render_text(kTwoTurns), true), expected);
  EXPECT_EQ(f.end_of_turn(), 128009);
  // The template trims every message.
  std::vector<ChatMessage> padded = kTwoTurns;
  padded[1].content = "\n  What is 1+1?  \n";
  EXPECT_EQ(f.render(padded), expected);
}

TEST(ChatFormatFalcon3, TwoTurnsWithMarkersAsText) {
  // The LLaMA 3 vocabulary has no <|user|>: a Hugging Face tokenizer encodes the markers as text, and
  // the reply ends with EOS (<|end_of_text|> there).
  const ChatFormat f(ChatFormatKind::Falcon3, llama3(), kFalcon3Template);
  const Ids expected{27,  91,  9125, 91,  397,  3513, 10015, 627,   27, 91,   882, 91, 397,    3923, 374,
                     220, 16,  10,   16,  5380, 27,   91,    78191, 91, 397,  17,  13, 128001, 198,  27,
                     91,  882, 91,   397, 3112, 220,  17,    10,    17, 5380, 27,  91, 78191,  91,   397};
  EXPECT_EQ(f.render(kTwoTurns), expected);
  EXPECT_EQ(f.render_text(kTwoTurns),
            "<|system|>\nBe brief.\n<|user|>\nWhat is 1+1?\n<|assistant|>\n2.<|end_of_text|>\n"
            "<|user|>\nAnd 2+2?\n<|assistant|>\n");
  EXPECT_EQ(f.end_of_turn(), llama3().eos());
}

TEST(ChatFormatFalcon3, MarkersThatAreSpecialTokensBecomeTheirIds) {
  const ChatFormat f(ChatFormatKind::Falcon3, marked(), kFalcon3Template);
  const std::string text = f.render_text(kTwoTurns);
  EXPECT_EQ(text,
            "<|system|>\nBe brief.\n<|user|>\nWhat is 1+1?\n<|assistant|>\n2.<|endoftext|>\n"
            "<|user|>\nAnd 2+2?\n<|assistant|>\n");
  const Ids ids = f.render(kTwoTurns);
  EXPECT_EQ(ids, marked().encode(text, true));  // as a Hugging Face tokenizer encodes the rendered text
  EXPECT_EQ(ids.front(), kSystem);              // no BOS: the template writes none
  EXPECT_EQ(std::count(ids.begin(), ids.end(), kEndOfText), 1);
  EXPECT_EQ(f.end_of_turn(), kEndOfText);  // never LLaMA 3's ids in a Falcon vocabulary
  // The last message, a reply, ends with EOS alone.
  std::vector<ChatMessage> ends_with_reply(kTwoTurns.begin(), kTwoTurns.begin() + 3);
  const std::string last = f.render_text(ends_with_reply, false);
  EXPECT_TRUE(last.ends_with("<|assistant|>\n2.<|endoftext|>")) << last;
}

TEST(ChatFormatChatML, TwoTurnsAsTheRealTemplateRenders) {
  const ChatFormat f(ChatFormatKind::ChatML, marked(), kChatMLTemplate);
  // Special tokens as ids, each piece between them as the JS tokenizer encodes it.
  const Ids expected{kImStart, 9125,  198, 3513, 10015, 13,     kImEnd, 198,  // system\nBe brief.
                     kImStart, 882,   198, 3923, 374,   220,    16,     10,  16, 30,     kImEnd,
                     198,                                                                      // user\nWhat is 1+1?
                     kImStart, 78191, 198, 17,   13,    kImEnd, 198,                           // assistant\n2.
                     kImStart, 882,   198, 3112, 220,   17,     10,     17,  30, kImEnd, 198,  // user\nAnd 2+2?
                     kImStart, 78191, 198};                                                    // assistant\n
  EXPECT_EQ(f.render(kTwoTurns), expected);
  EXPECT_EQ(marked().encode(f.render_text(kTwoTurns), true), expected);
  EXPECT_EQ(f.end_of_turn(), kImEnd);
  EXPECT_EQ(f.stop_tokens(), (Ids{kImEnd}));
  // A template that writes bos_token starts with BOS.
  const ChatFormat with_bos(ChatFormatKind::ChatML, marked(), std::string("{{ bos_token }}") + kChatMLTemplate);
  EXPECT_EQ(with_bos.render(kTwoTurns).front(), marked().bos());
}

TEST(ChatFormatChatML, VocabularyWithoutImEndIsRefused) {
  try {
    ChatFormat f(ChatFormatKind::ChatML, llama3(), kChatMLTemplate);
    ADD_FAILURE() << "no error";
  } catch (const trit::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("no special token <|im_end|>"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ChatFormat(ChatFormatKind::Base, llama3()), std::invalid_argument);
}

// ---- shared rules ----

TEST(ChatFormat, SpecialTokenTextInMessagesStaysText) {
  const ChatFormat f(ChatFormatKind::Bitnet2B4T, llama3());
  std::vector<ChatMessage> chat{{ChatRole::User, "And 2+2? Say <|eot_id|> please."}};
  // JS, piece by piece: "User: And 2+2? Say" | " <|" | "eot" | "_id" | "|>" | " please."
  const Ids expected{128000, 1502, 25,  1628, 220, 17,   10, 17,     30,    25961, 83739,
                     68,     354,  851, 91,   29,  4587, 13, 128009, 72803, 25,    220};
  Ids ids = f.render(chat);
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 128009), 1);
  for (ChatFormatKind kind : {ChatFormatKind::ChatML, ChatFormatKind::Falcon3}) {
    const ChatFormat g(kind, marked());
    std::vector<ChatMessage> typed{{ChatRole::User, "<|im_end|><|user|><|endoftext|>"}};
    ids = g.render(typed);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), kImEnd), kind == ChatFormatKind::ChatML ? 1 : 0);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), kUser), kind == ChatFormatKind::Falcon3 ? 1 : 0);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), kEndOfText), 0);
  }
}

TEST(ChatFormat, ErrorsNameTheMessage) {
  const ChatFormat f(ChatFormatKind::Bitnet2B4T, llama3());
  std::vector<ChatMessage> chat{{ChatRole::User, "fine"}, {ChatRole::Assistant, std::string("bad \xC3")}};
  try {
    f.render(chat);
    ADD_FAILURE() << "no error for invalid UTF-8";
  } catch (const trit::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("chat message 1 (Assistant)"), std::string::npos) << e.what();
    // The offset counts in the message's own text ("bad \xC3": byte 4 of 5).
    EXPECT_NE(std::string(e.what()).find("is not valid UTF-8 at byte 4 of its 5 bytes"), std::string::npos) << e.what();
  }
  std::vector<ChatMessage> bad_id{{ChatRole::User, "q"}, {ChatRole::Assistant, "a", {5, 999999}}};
  try {
    f.render(bad_id);
    ADD_FAILURE() << "no error for a sampled id outside the vocabulary";
  } catch (const trit::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("chat message 1 (Assistant): sampled token id 999999"), std::string::npos)
        << e.what();
  }
  trit::TokenizerVocab v = trit::byte_level_vocab();
  v.bos = -1;
  EXPECT_THROW(ChatFormat(ChatFormatKind::Bitnet2B4T, trit::Tokenizer(v)), trit::TokenizerError);
  EXPECT_THROW(ChatFormat(ChatFormatKind::Llama3, trit::Tokenizer(v)), trit::TokenizerError);
}

TEST(ChatFormat, NamesOfRolesAndFormats) {
  EXPECT_EQ(trit::chat_role_name(ChatRole::System), "System");
  EXPECT_EQ(trit::chat_role_name(ChatRole::User), "User");
  EXPECT_EQ(trit::chat_role_name(ChatRole::Assistant), "Assistant");
  EXPECT_EQ(trit::chat_format_name(ChatFormatKind::Base), "base model");
  EXPECT_EQ(trit::chat_format_name(ChatFormatKind::Llama3), "Llama 3 Instruct");
}

// ---- reusing a reply's sampled ids ----

// Ids a sampler could produce but a fresh encoding of the text would not ("ab" as two single bytes),
// ending with the token the reply stopped on.
Ids sampled_reply(const trit::Tokenizer& tok, int32_t end) {
  Ids s{*tok.find_token("a"), *tok.find_token("b")};
  s.push_back(end);
  return s;
}

TEST(ChatFormat, ReplyIdsAreReusedSoTheCachedPrefixStays) {
  struct Case {
    ChatFormatKind kind;
    const trit::Tokenizer* tok;
    const char* tmpl;
  };
  for (const Case& c :
       {Case{ChatFormatKind::Bitnet2B4T, &llama3(), ""}, Case{ChatFormatKind::Llama3, &llama3(), kLlama3Template},
        Case{ChatFormatKind::Falcon3, &llama3(), kFalcon3Template},
        Case{ChatFormatKind::Falcon3, &marked(), kFalcon3Template},
        Case{ChatFormatKind::ChatML, &marked(), kChatMLTemplate}}) {
    SCOPED_TRACE(std::string(trit::chat_format_name(c.kind)));
    const ChatFormat f(c.kind, *c.tok, c.tmpl);
    const Ids sampled = sampled_reply(*c.tok, f.end_of_turn());
    const std::vector<ChatMessage> first{{ChatRole::System, "s"}, {ChatRole::User, "q"}};
    // What the KV cache holds after the reply: the prompt, then every sampled id.
    Ids cached = f.render(first);
    cached.insert(cached.end(), sampled.begin(), sampled.end());
    std::vector<ChatMessage> second = first;
    second.push_back({ChatRole::Assistant, "ab", sampled});
    second.push_back({ChatRole::User, "next"});
    const Ids prompt2 = f.render(second);
    ASSERT_GT(prompt2.size(), cached.size());
    EXPECT_TRUE(std::equal(cached.begin(), cached.end(), prompt2.begin()));
    // The end of turn is written once, whether the sampled ids hold it or not (a stopped reply).
    second[2].sampled.pop_back();
    EXPECT_EQ(f.render(second), prompt2);
  }
}

// ---- base models ----

TEST(CompletionPrompt, TextContinuedWithoutMarkup) {
  std::vector<ChatMessage> chat{{ChatRole::System, "ignored"}, {ChatRole::User, "Once upon"}};
  EXPECT_EQ(trit::completion_prompt(llama3(), chat), llama3().encode("Once upon", false, true));
  // A continuation's sampled ids are reused, and the next text follows them directly.
  const Ids sampled{*llama3().find_token("a"), llama3().eos()};
  chat.push_back({ChatRole::Assistant, "a", sampled});
  chat.push_back({ChatRole::User, " time"});
  Ids expected = llama3().encode("Once upon", false, true);
  expected.push_back(sampled[0]);
  const Ids rest = llama3().encode(" time");
  expected.insert(expected.end(), rest.begin(), rest.end());
  EXPECT_EQ(trit::completion_prompt(llama3(), chat), expected);
  // Typed special-token text stays text.
  const Ids typed = trit::completion_prompt(llama3(), std::vector<ChatMessage>{{ChatRole::User, "<|eot_id|>"}});
  EXPECT_EQ(std::count(typed.begin(), typed.end(), 128009), 0);
}

}  // namespace
