// Plain English prose the byte-level vocabulary learns its merges from. Written for this project; any
// ordinary text would do, as long as it is fixed (the vocabulary must not change between builds).
#include "modelgen/byte_vocab.h"

namespace trit::modelgen {

std::string_view byte_vocab_corpus() {
  return "The weather in the valley was mild that spring, and the farmers started their work early in the "
         "morning. They walked to the fields before the sun was high, carrying water, bread and the tools they "
         "would need for the day. The river ran fast with the melting snow from the mountains, and the children "
         "who lived near the water were told to stay away from the banks until the summer came.\n"
         "In the town, the market opened at eight. There were stalls with apples, onions, cheese, fresh fish and "
         "warm bread. People talked about the prices, about the rain that had not come, and about the new road "
         "that the council wanted to build between the station and the old bridge. Some of them thought it "
         "was a good idea; others said that it would bring more traffic and noise than anyone needed.\n"
         "A small language model reads text one token at a time. Each token is a piece of a word, a whole word, "
         "or a mark of punctuation. The model turns every token into a vector of numbers, passes the vectors "
         "through many layers, and at the end it gives a score to every token in its vocabulary. The token "
         "with the highest score is the one the model thinks should come next. When the weights are ternary, "
         "each weight is minus one, zero or plus one, and the model needs far less memory than one that stores "
         "every weight as a floating point number.\n"
         "Questions that people often ask: How much memory does it need? How fast does it run on a laptop? "
         "Can it answer in other languages? Does it work without a network connection? The answers depend on "
         "the size of the model and on the computer, but a model with two billion parameters in this format "
         "fits in about one gigabyte and can write several words per second on an ordinary machine.\n"
         "She opened the window and looked at the garden. The roses had started to bloom, the grass needed "
         "cutting, and there were birds singing in the tall trees at the end of the path. It was the kind of "
         "morning that made everything seem possible. She made a cup of tea, sat down at the table, and began "
         "to write the letter she had been thinking about for weeks.\n"
         "Dear friend, thank you for your last message. We are all well here. The children are growing fast "
         "and they ask about you every time we talk about the holidays. We hope that you will visit us this "
         "year, when the weather is warm and the days are long. There is a lot to show you: the new house, the "
         "garden, the lake where we swim in the evening, and the little shop that sells the best ice cream in "
         "the country. Write back when you can, and tell us about your work and your plans.\n"
         "1. Preheat the oven to 180 degrees. 2. Mix the flour, the sugar and the butter in a large bowl. "
         "3. Add two eggs and a little milk, and stir until the mixture is smooth. 4. Pour it into a tin and "
         "bake for 35 to 40 minutes, until the top is golden. 5. Let the cake cool for ten minutes before you "
         "take it out of the tin. It keeps for three days in a closed box.\n"
         "The history of computing is a history of making machines smaller, faster and cheaper. The first "
         "computers filled whole rooms and used more power than a village; today a phone in your pocket does "
         "more work in a second than those machines did in a year. What has not changed is the need for "
         "careful thinking: a program does exactly what it is told, and it is the people who write it who "
         "must make sure that what it is told is right.\n"
         "\"Where are you going?\" he asked. \"To the station,\" she said, \"the train leaves at half past "
         "nine and I don't want to miss it.\" He nodded, picked up her bag, and they walked together through "
         "the quiet streets, past the bakery, the school and the church, while the town was still waking up.\n";
}

}  // namespace trit::modelgen
