"""Write the project's own sample data from the passages below (the single source of truth).

Usage:  python scripts/make_samples.py            # rewrite resources/samples/* and resources/examples/*
        python scripts/make_samples.py --check    # exit 1 if the files on disk differ from what would be written

Every passage, question and sentence here was written for BERT Explorer (not copied from SQuAD,
Wikipedia or any other source), so the samples can ship with the app under the project's licence.
Three passages describe invented places and events (Brennmoor, Harlow Vale, the Ellery Cup).

Outputs (SQuAD v2.0 official format, as read by evaluate-v2.0.py and explorer.core.data.squad):
  resources/samples/squad_v2_sample.json        all 30 passages
  resources/samples/squad_v2_sample_train.json  24 passages (every passage whose index % 5 != 4)
  resources/samples/squad_v2_sample_dev.json    6 passages (index % 5 == 4), disjoint from train
  resources/samples/squad_v1_sample_train.json  the train passages' answerable questions only (SQuAD v1.1)
  resources/samples/squad_v1_sample_dev.json    the dev passages' answerable questions only (SQuAD v1.1):
                                                the offline default run, which must learn spans in minutes
  resources/samples/sst2_sample.tsv             GLUE SST-2 style: "sentence<TAB>label" with a header
  resources/examples/probe_examples.json        question/passage pairs for the inspector's example picker

answer_start values are computed here with str.find, never typed by hand; an answer that occurs more
than once in its passage must name the occurrence, e.g. ("Ashcombe", 1) for the second one.
Question ids are the first 24 hex digits of sha1(title + NUL + question), like SQuAD's 24-character ids.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = REPO_ROOT / "resources" / "samples"
EXAMPLES_DIR = REPO_ROOT / "resources" / "examples"
DEV_EVERY = 5  # passage i goes to dev when i % DEV_EVERY == DEV_EVERY - 1


def A(question, *answers):
    """An answerable question. Each answer is a passage substring, or (substring, occurrence index)."""
    return {"question": question, "answers": list(answers)}


def N(question, plausible=None):
    """A question the passage cannot answer; `plausible` is the span a careless reader might pick."""
    return {"question": question, "answers": [], "plausible": plausible}


def P(title, text, qas):
    return {"title": title, "context": " ".join(text.split()), "qas": qas}


PASSAGES = [
    P("Tardigrade", """
Tardigrades are microscopic animals, usually less than half a millimetre long, with a plump body and
eight stubby legs ending in claws. The German pastor Johann August Ephraim Goeze first described them in
1773 and called them little water bears, and four years later the Italian biologist Lazzaro Spallanzani
gave the group the name Tardigrada, meaning slow steppers. They live in moss, lichen, leaf litter and sea
sediments almost everywhere on Earth. When their surroundings dry out, tardigrades pull in their legs,
lose nearly all the water in their bodies and curl into a dormant form called a tun. In that state their
metabolism falls to a tiny fraction of its normal rate. In 2007 a European experiment carried dried
tardigrades into low Earth orbit and exposed them to open space, and some of the animals recovered after
they returned.""", [
        A("What did Goeze call tardigrades?", "little water bears"),
        A("What does the name Tardigrada mean?", "slow steppers"),
        A("What is the dormant form of a dried-out tardigrade called?", "tun"),
        N("In what year did Spallanzani first describe tardigrades?", plausible="1773"),
        N("How long can a tardigrade survive as a tun?"),
    ]),
    P("Printing press", """
Around 1450, in the German city of Mainz, the goldsmith Johannes Gutenberg brought several ideas together
into a working printing system. Its heart was movable type: individual letters cast in an alloy of lead,
tin and antimony, made with a hand mould so that thousands of identical pieces could be produced. Gutenberg
also developed an oil-based ink that clung to metal better than the water-based inks used for woodblocks,
and he adapted a screw press of the kind used to make wine. His best-known work, a Latin Bible finished
around 1455, was printed in about 180 copies, some on paper and some on vellum. Within fifty years
printing shops had opened in many European cities, and books became far cheaper than hand-copied
manuscripts.""", [
        A("In which city did Gutenberg build his printing system?", "Mainz"),
        A("Which metals made up the alloy of Gutenberg's type?", "lead, tin and antimony"),
        A("What kind of press did Gutenberg adapt?", "screw press"),
        A("About how many copies of Gutenberg's Bible were printed?", "180"),
        N("Who paid for Gutenberg's printing workshop?"),
        N("How many copies of the Bible were printed on vellum?", plausible="180"),
    ]),
    P("Lake Baikal", """
Lake Baikal lies in southern Siberia, in Russia, between the Irkutsk region and the Republic of Buryatia.
It is the deepest lake in the world, reaching 1,642 metres at its lowest point, and with an age of about
25 million years it is also thought to be the oldest. Because it is so deep, Baikal holds roughly a fifth
of all the unfrozen fresh water on the surface of the planet, more than North America's Great Lakes
combined. More than three hundred rivers flow into the lake, but only one, the Angara, flows out. Baikal
is home to many species found nowhere else, including the nerpa, one of the few seals in the world that
live entirely in fresh water. In winter the surface freezes for four to five months.""", [
        A("How deep is Lake Baikal at its deepest point?", "1,642 metres"),
        A("Which river flows out of Lake Baikal?", "Angara"),
        A("What is the freshwater seal of Lake Baikal called?", "nerpa"),
        A("About how old is Lake Baikal?", "about 25 million years"),
        N("How deep is the deepest of North America's Great Lakes?", plausible="1,642 metres"),
        N("Which river flows into Lake Baikal from Buryatia?", plausible="Angara"),
    ]),
    P("Marathon", """
The marathon was first run as a modern race at the 1896 Olympic Games in Athens, inspired by the legend of
a messenger who ran from the battlefield of Marathon to Athens to announce a Greek victory. The Greek water
carrier Spyridon Louis won that first Olympic race, to the delight of the home crowd. Early marathons had
no fixed length. At the 1908 London Games the course was laid out from Windsor Castle to the stadium, a
distance of 42.195 kilometres, and in 1921 the international athletics federation adopted that figure as
the official distance. Today large city marathons in places such as Boston, Berlin and Tokyo attract tens
of thousands of runners, and many amateurs train for months to finish one.""", [
        A("Who won the first Olympic marathon?", "Spyridon Louis"),
        A("Where did the 1908 Olympic marathon course start?", "Windsor Castle"),
        A("In what year did 42.195 kilometres become the official marathon distance?", "1921"),
        N("How long did Spyridon Louis take to finish the 1896 race?"),
        N("Who won the marathon at the 1908 London Games?", plausible="Spyridon Louis"),
    ]),
    P("Piano", """
The piano was invented in Florence around 1700 by Bartolomeo Cristofori, an instrument maker employed by
the Medici family. Earlier keyboard instruments such as the harpsichord pluck their strings with small
quills, so a player cannot make one note much louder than another. Cristofori's instrument instead struck
the strings with leather-covered hammers that fell back at once, letting the string ring, and the force of
the blow depended on how hard the key was pressed. He called it a gravicembalo col piano e forte, a
harpsichord with soft and loud, and the name was later shortened to pianoforte and then piano. A modern
concert grand has 88 keys and more than two hundred strings, most notes using two or three strings tuned
together.""", [
        A("Who invented the piano?", "Bartolomeo Cristofori", ("Cristofori", 0)),
        A("Which family employed Cristofori?", "the Medici family", "Medici"),
        A("What does a harpsichord use to pluck its strings?", "small quills", "quills"),
        A("How many keys does a modern concert grand have?", "88"),
        N("In what year did Cristofori die?", plausible="1700"),
        N("How many keys did Cristofori's first piano have?", plausible="88"),
    ]),
    P("Sourdough", """
Sourdough bread rises without any yeast bought from a shop. Instead the baker keeps a starter, a paste of
flour and water in which wild yeasts and lactic acid bacteria live together. The yeasts produce carbon
dioxide gas, which makes the dough rise, while the bacteria produce lactic and acetic acids that give the
bread its tangy flavour and help it keep longer. A starter must be fed regularly: the baker throws away
part of it and adds fresh flour and water, often once a day if it is kept at room temperature.""", [
        A("Which two kinds of microbes live in a sourdough starter?", "wild yeasts and lactic acid bacteria"),
        A("Which gas makes sourdough rise?", "carbon dioxide"),
        A("What gives sourdough its tangy flavour?", "lactic and acetic acids"),
        A("How often is a starter kept at room temperature usually fed?", "once a day"),
        N("How long can a sourdough starter survive without feeding?"),
    ]),
    P("QWERTY keyboard", """
The QWERTY keyboard takes its name from the first six letters on the top row of letter keys. It grew out of
the typewriter designed by Christopher Latham Sholes, a printer and newspaper editor from Milwaukee, working
with Carlos Glidden and Samuel Soule. Sholes rearranged the keys many times during the 1860s and 1870s; a
popular explanation is that he separated common letter pairs so that the metal type bars would not jam,
although historians still debate the reasons. The manufacturer E. Remington and Sons began selling the
Sholes and Glidden typewriter in 1874. Later layouts, such as the Dvorak keyboard of the 1930s, promised
faster typing, but QWERTY was already on millions of machines and it remains the standard for English
keyboards today.""", [
        A("Where does the name QWERTY come from?", "the first six letters on the top row of letter keys"),
        A("Which company began selling the Sholes and Glidden typewriter?", "E. Remington and Sons"),
        A("In which year did sales of the Sholes and Glidden typewriter begin?", "1874"),
        A("Which later layout promised faster typing?", "Dvorak keyboard"),
        N("Who designed the Dvorak keyboard?", plausible="Christopher Latham Sholes"),
        N("In what year was the QWERTY layout patented?", plausible="1874"),
    ]),
    P("Vaccination", """
In May 1796 the English country doctor Edward Jenner tested an idea that milkmaids had long talked about:
people who caught cowpox, a mild disease of cattle, seemed to be protected from smallpox. Jenner took
material from a cowpox sore on the hand of a milkmaid named Sarah Nelmes and scratched it into the arm of
James Phipps, the eight-year-old son of his gardener. Some weeks later he exposed the boy to smallpox, and
Phipps did not fall ill. The method became known as vaccination, from vacca, the Latin word for cow. The
practice spread across Europe and beyond within a few years. Almost two centuries later, after a worldwide
campaign, the World Health Organization declared in 1980 that smallpox had been eradicated.""", [
        A("Whose cowpox sore did Jenner take material from?", "Sarah Nelmes"),
        A("How old was James Phipps?", "eight"),
        A("What is the Latin word for cow?", "vacca"),
        A("When was smallpox declared eradicated?", "1980"),
        N("Who first used the word vaccination?", plausible="Edward Jenner"),
        N("How many people did Jenner vaccinate in 1796?"),
    ]),
    P("Pointillism", """
Georges Seurat spent two years, from 1884 to 1886, painting A Sunday Afternoon on the Island of La Grande
Jatte, a large canvas showing Parisians relaxing in a park on an island in the Seine. Instead of mixing
colours on his palette, Seurat placed small dots and short strokes of pure colour side by side and let the
viewer's eye blend them from a distance. The technique became known as pointillism, and Seurat, who read
the colour theories of scientists such as Michel Eugène Chevreul, preferred to call it chromoluminarism.
His friend Paul Signac carried the method forward after Seurat died in 1891 at the age of thirty-one. The
painting now hangs in the Art Institute of Chicago.""", [
        A("Where is the park shown in Seurat's painting?", "an island in the Seine"),
        A("What did Seurat prefer to call his technique?", "chromoluminarism"),
        A("Who carried Seurat's method forward after his death?", "Paul Signac"),
        A("Where does the painting hang today?", "the Art Institute of Chicago"),
        N("How much did the Art Institute of Chicago pay for the painting?"),
        N("In what year was Seurat born?", plausible="1891"),
    ]),
    P("Inflation", """
Inflation is the rate at which the general level of prices rises over time, so that a unit of money buys
less than it did before. Statistics offices usually measure it with a consumer price index, which tracks the
cost of a fixed basket of goods and services that a typical household buys, such as food, rent, fuel and
transport. If the basket cost 100 a year ago and costs 103 today, annual inflation is 3 percent. Many
central banks aim to keep inflation close to 2 percent. When prices rise faster than that, a central bank
may raise its interest rates, which makes borrowing more expensive and tends to slow spending. A general
fall in prices is called deflation.""", [
        A("What does a consumer price index track?", "the cost of a fixed basket of goods and services"),
        A("What inflation rate do many central banks aim for?", "close to 2 percent", "2 percent"),
        A("What is a general fall in prices called?", "deflation"),
        N("What was the inflation rate last year?", plausible="3 percent"),
        N("Which central bank first adopted a 2 percent target?"),
    ]),
    P("Monarch butterfly", """
Each autumn, monarch butterflies from eastern North America fly south to spend the winter in the mountain
forests of central Mexico, a journey that can exceed four thousand kilometres. Millions of them cluster on
the branches of oyamel fir trees, where the cool, moist air lets them save energy until spring. The
butterflies that make this trip are not the same ones that left Mexico the spring before: the northward
return is spread over three or four generations, each living only a few weeks. The autumn migrants belong
to a special generation that can live for up to eight months. Monarch caterpillars feed only on milkweed,
whose bitter chemicals they store in their bodies and which make both caterpillars and adults distasteful
to birds.""", [
        A("Where do monarchs from eastern North America spend the winter?", "the mountain forests of central Mexico"),
        A("On which trees do monarchs cluster in winter?", "oyamel fir trees"),
        A("What do monarch caterpillars feed on?", "milkweed"),
        A("How long can the autumn migrants live?", "up to eight months"),
        N("Where do monarchs from western North America spend the winter?", plausible="central Mexico"),
        N("How fast do monarch butterflies fly?"),
    ]),
    P("Galilean moons", """
In January 1610 Galileo Galilei pointed his new telescope at Jupiter and noticed three, and then four, small
points of light lined up near the planet. Over several nights they changed position, and he realised that
they were moons orbiting Jupiter, the first objects ever seen to circle a world other than the Earth. The
four, now called the Galilean moons, are Io, Europa, Ganymede and Callisto. Io is the most volcanically
active body in the solar system, heated by the tides that Jupiter raises inside it. Europa has an icy crust
that probably covers an ocean of liquid water. Ganymede is the largest moon in the solar system and is even
bigger than the planet Mercury.""", [
        A("When did Galileo first observe the moons of Jupiter?", "January 1610"),
        A("Which is the largest moon in the solar system?", ("Ganymede", 1)),
        A("What heats Io?", "the tides that Jupiter raises inside it"),
        A("What probably lies under the icy crust of Europa?", "an ocean of liquid water"),
        N("Which Galilean moon is the smallest?"),
        N("How many moons does Jupiter have in total?", plausible=("four", 0)),
    ]),
    P("Periodic table", """
In 1869 the Russian chemist Dmitri Mendeleev arranged the sixty-three elements then known in order of
increasing atomic weight and grouped together those with similar chemical behaviour. What set his table
apart was his willingness to leave gaps. Where no known element fitted, he left an empty place and predicted
that an undiscovered element would one day fill it, even estimating its weight and properties. He called one
of these missing elements eka-aluminium. In 1875 the French chemist Paul-Émile Lecoq de Boisbaudran found a
new metal in zinc ore and named it gallium; its properties matched Mendeleev's forecast closely. The
discovery persuaded many doubters that the periodic table reflected something real about the structure of
matter.""", [
        A("How many elements were known in 1869?", "sixty-three"),
        A("What did Mendeleev call the element later named gallium?", "eka-aluminium"),
        A("Who discovered gallium?", "Paul-Émile Lecoq de Boisbaudran"),
        A("In what was gallium found?", "zinc ore"),
        N("What did Mendeleev call the element later named germanium?", plausible="eka-aluminium"),
        N("In what year did Mendeleev die?"),
    ]),
    P("First computer bug", """
On 9 September 1947, operators of the Harvard Mark II computer found that a relay had stopped working. Inside
it they discovered a moth, trapped between the contacts. They removed the insect with tweezers and taped it
into the machine's logbook beside the note First actual case of bug being found. The word bug had been used
by engineers for faults in machinery since at least the time of Thomas Edison, so the joke lay in finding a
real one. The computer scientist Grace Hopper, who worked on the Mark II team, told the story often and
helped make it famous. The logbook page, moth included, is now kept at the Smithsonian's National Museum of
American History.""", [
        A("What was found inside the relay?", "a moth"),
        A("Where was the moth put after it was removed?", "the machine's logbook"),
        A("In which computer was the moth found?", "Harvard Mark II"),
        A("Where is the logbook page kept today?", "the Smithsonian's National Museum of American History"),
        N("Who found the moth in the relay?", plausible="Grace Hopper"),
        N("In what year did Grace Hopper join the Mark II team?", plausible="1947"),
    ]),
    P("Brennmoor", """
Brennmoor is a small market town on the north bank of the River Oune, about forty kilometres upstream from
the coast. It grew up around a stone bridge built in the thirteenth century, which for a long time was the
only crossing of the river between the sea and the hills. The town's weekly market is held every Thursday in
Bridge Square, where farmers sell cheese, apples and wool. In 1862 a railway line reached Brennmoor, and a
brick works opened beside the station soon afterwards, using clay dug from the riverbanks. The brick works
closed in 1971, and its tall chimney now stands in a park. Today about nine thousand people live in the
town.""", [
        A("On which river does Brennmoor stand?", "River Oune", "the River Oune"),
        A("On which day is the Brennmoor market held?", "Thursday", "every Thursday"),
        A("When did the railway reach Brennmoor?", "1862"),
        A("How many people live in Brennmoor today?", "about nine thousand", "nine thousand"),
        N("In what year did the brick works open?", plausible="1862"),
        N("Who built the stone bridge at Brennmoor?"),
    ]),
    P("Basketball", """
Basketball was invented in December 1891 by James Naismith, a Canadian physical education teacher at a
training school in Springfield, Massachusetts. His head of department asked him to create an indoor game
that would keep students active during the long New England winter. Naismith wrote thirteen basic rules and
nailed two peach baskets to the lower rail of a gymnasium balcony, about three metres above the floor. The
first game was played by two teams of nine players, and the only score was a single basket. Because the
baskets kept their bottoms, someone had to climb up and fetch the ball after each goal. Open nets were
introduced some years later, and the number of players on court was eventually fixed at five per side.""", [
        A("Who invented basketball?", "James Naismith"),
        A("How many rules did Naismith first write?", "thirteen"),
        A("What did Naismith use as the first goals?", "two peach baskets"),
        A("How many players were on each team in the first game?", "nine"),
        N("Who won the first basketball game?"),
        N("In what year were open nets introduced?", plausible="1891"),
    ]),
    P("Harlow Vale Folk Festival", """
The Harlow Vale Folk Festival began in 1972, when three fiddle players from neighbouring villages hired a
field and a marquee and invited anyone with an instrument to join them. About four hundred people came to
that first weekend. The festival now takes place every August over four days and draws around twelve
thousand visitors. Its main stage is named after Edith Carrow, a ballad singer who performed at every
festival until she was ninety. Tickets for
children under twelve are free.""", [
        A("When did the Harlow Vale Folk Festival begin?", "1972"),
        A("How many people came to the first festival?", "About four hundred"),
        A("Who is the main stage named after?", "Edith Carrow"),
        N("Who were the three fiddle players who founded the festival?"),
    ]),
    P("Tomato", """
The tomato is native to western South America, where wild plants still grow with small berries the size of
peas. It was domesticated in Mesoamerica, and Spanish explorers carried it to Europe in the sixteenth
century. Italians were among the first Europeans to cook with it, calling it pomodoro, golden apple, perhaps
because the first varieties they knew were yellow. In England and its colonies many people long regarded
the plant with suspicion, since it belongs to the nightshade family, some of whose members are poisonous.
By the nineteenth century those fears had faded, and today the tomato is one of the most widely grown
vegetables in the world, although botanists classify it as a fruit.""", [
        A("Where is the tomato native to?", "western South America"),
        A("Who carried the tomato to Europe?", "Spanish explorers"),
        A("What does pomodoro mean?", "golden apple"),
        A("To which plant family does the tomato belong?", "nightshade"),
        N("In what year did the tomato reach Europe?", plausible="sixteenth century"),
        N("Which country grows the most tomatoes today?"),
    ]),
    P("Penicillin", """
In September 1928 the Scottish bacteriologist Alexander Fleming returned from holiday to his laboratory at
St Mary's Hospital in London and found that one of his culture plates of Staphylococcus bacteria had been
contaminated by a mould. Around the mould was a clear ring where the bacteria had died. Fleming identified
the mould as a Penicillium and named the substance it released penicillin, but he found it hard to purify
and produce in quantity. More than a decade later, Howard Florey and Ernst Chain at the University of Oxford
worked out how to extract and concentrate it, and in the 1940s mass production began in time to treat
wounded soldiers in the Second World War. Fleming, Florey and Chain shared the Nobel Prize in Physiology or
Medicine in 1945. In his Nobel lecture Fleming warned that bacteria could become
resistant to penicillin if patients took too little of it or stopped the treatment too soon, a problem that
doctors still face with many antibiotics today.""", [
        A("Where was Fleming's laboratory?", "St Mary's Hospital in London"),
        A("Which bacteria grew on the contaminated plate?", "Staphylococcus"),
        A("Who worked out how to extract and concentrate penicillin?", "Howard Florey and Ernst Chain"),
        A("What did Fleming warn that bacteria could become?", "resistant to penicillin"),
        N("Where had Fleming gone on holiday?"),
        N("When did Florey and Chain first treat a patient with penicillin?", plausible="1940s"),
    ]),
    P("The Great Wave", """
The Great Wave off Kanagawa is a woodblock print made by the Japanese artist Katsushika Hokusai (葛飾北斎)
around 1831, when he was in his early seventies. It belongs to his series Thirty-six Views of Mount Fuji and
shows three boats of rowers caught beneath a towering wave whose foam curls like claws, while the
snow-capped mountain appears small in the distance. Because it was printed from carved wooden blocks,
thousands of impressions could be made and sold cheaply. Hokusai used Prussian blue, a synthetic pigment
imported from Europe that kept its colour better than traditional blues. Copies of the print are held by
many museums, including the British Museum and the Metropolitan Museum of Art.""", [
        A("Who made The Great Wave off Kanagawa?", "Katsushika Hokusai", ("Hokusai", 0)),
        A("Which series does the print belong to?", "Thirty-six Views of Mount Fuji"),
        A("Which pigment did Hokusai use?", "Prussian blue"),
        A("How many boats appear in the print?", "three"),
        N("How many impressions of The Great Wave survive today?", plausible="thousands"),
        N("How much did a copy of the print cost when it was first sold?"),
    ]),
    P("Division of labour", """
In The Wealth of Nations, published in 1776, the Scottish philosopher Adam Smith opened his argument with a
small pin factory. One worker on his own, Smith wrote, could hardly make twenty pins in a day. But in the
factory the work was split into about eighteen distinct operations: one man drew out the wire, another
straightened it, a third cut it, a fourth sharpened the point, and so on. Ten workers dividing the tasks in
this way could make upwards of forty-eight thousand pins a day between them. Smith argued that this division
of labour raises productivity because each worker grows skilled at one task, saves the time of switching
between tasks, and is more likely to invent machines to help with it.""", [
        A("When was The Wealth of Nations published?", "1776"),
        A("Into how many operations was the making of a pin split?", "eighteen"),
        A("How many pins could ten workers make in a day?", "upwards of forty-eight thousand"),
        A("What did Smith call the splitting of work into separate tasks?", "division of labour"),
        N("In which town was the pin factory that Smith described?"),
        N("How many copies of The Wealth of Nations were printed in 1776?"),
    ]),
    P("Coral reefs", """
Coral reefs are built by colonies of tiny animals called polyps, each a soft body topped by a ring of
tentacles. The polyps take calcium carbonate from seawater and lay down hard skeletons beneath themselves,
and over thousands of years these skeletons pile up into reefs. Most reef-building corals live in
partnership with microscopic algae called zooxanthellae, which live inside their tissues, make food from
sunlight and give the coral much of its colour. When the water becomes too warm for too long, the corals
expel the algae and turn white, an event known as bleaching; if conditions do not recover, the corals
starve. The largest reef system on Earth is the Great Barrier Reef, which stretches for more than two
thousand kilometres off the coast of Queensland, Australia.""", [
        A("What are the tiny animals that build coral reefs called?", ("polyps", 0)),
        A("What do polyps take from seawater to build their skeletons?", "calcium carbonate"),
        A("What are the algae living inside corals called?", "zooxanthellae"),
        A("What is it called when corals expel their algae and turn white?", "bleaching"),
        N("How many species of coral live on the Great Barrier Reef?"),
        N("At what water temperature does coral bleaching begin?", plausible="too warm"),
    ]),
    P("Speed of sound", """
Sound is a wave of pressure that travels through a material as its particles push on their neighbours. In
dry air at 20 degrees Celsius it moves at about 343 metres per second, and it goes faster in warm air than in
cold. In water sound travels at roughly 1,480 metres per second, more than four times as fast as in air, and
in steel it is faster still. An aircraft that flies faster than sound outruns the pressure waves it creates,
and they merge into a shock wave that is heard on the ground as a sonic boom. The American pilot Chuck
Yeager first flew faster than sound in level flight on 14 October 1947, in the rocket-powered Bell X-1.""", [
        A("How fast does sound travel in dry air at 20 degrees Celsius?", "about 343 metres per second"),
        A("How fast does sound travel in water?", "roughly 1,480 metres per second"),
        A("What is the shock wave of a supersonic aircraft heard as on the ground?", "a sonic boom"),
        A("Who first flew faster than sound in level flight?", "Chuck Yeager"),
        N("How fast does sound travel in steel?", plausible="1,480 metres per second"),
        N("What was the top speed of the Bell X-1?"),
    ]),
    P("Rosetta Stone", """
The Rosetta Stone is a slab of dark granodiorite found in 1799 by French soldiers rebuilding a fort near the
town of Rashid, which Europeans called Rosetta, in the Nile delta. It carries the same decree, issued in 196
BC on behalf of King Ptolemy V, written three times: in Egyptian hieroglyphs, in the everyday Egyptian script
called Demotic, and in ancient Greek. Because scholars could read the Greek, the stone offered a key to the
other two scripts. The English scientist Thomas Young made early progress with the Demotic text, and in 1822
the French scholar Jean-François Champollion announced that he had deciphered the hieroglyphs. After the
French were defeated in Egypt, the stone passed to the British, and it has been displayed in the British
Museum since 1802.""", [
        A("What rock is the Rosetta Stone made of?", "granodiorite"),
        A("On whose behalf was the decree issued?", "King Ptolemy V"),
        A("What is the everyday Egyptian script on the stone called?", ("Demotic", 0)),
        A("Who announced that he had deciphered the hieroglyphs?", "Jean-François Champollion"),
        N("Who commanded the soldiers who found the Rosetta Stone?"),
        N("In what year did Thomas Young decipher the hieroglyphs?", plausible="1822"),
    ]),
    P("Transistor", """
The transistor, the switch at the heart of every modern computer chip, was first demonstrated at Bell
Telephone Laboratories in New Jersey in December 1947. John Bardeen and Walter Brattain built the first
device, a point-contact transistor made from a slab of germanium with two gold contacts pressed close
together. Their group leader William Shockley soon designed an improved version, the junction transistor.
Transistors could do the job of the bulky vacuum tubes used in radios and early computers while using far
less power and lasting much longer. The three men shared the Nobel Prize in Physics in 1956. Today a single
processor can hold billions of transistors, each far smaller than a bacterium.""", [
        A("Where was the transistor first demonstrated?", "Bell Telephone Laboratories",
          "Bell Telephone Laboratories in New Jersey"),
        A("What material was the first transistor made from?", "germanium", "a slab of germanium"),
        A("Who designed the junction transistor?", "William Shockley"),
        A("What did transistors replace in radios and early computers?", "vacuum tubes", "the bulky vacuum tubes"),
        N("How many transistors did the first computer chip hold?", plausible="billions"),
        N("Who shared the Nobel Prize in Physics in 1947?", plausible="The three men"),
    ]),
    P("Sahara", """
The Sahara is the largest hot desert in the world, covering about nine million square kilometres across
northern Africa, from the Atlantic Ocean to the Red Sea. Despite its image, only about a quarter of it is
covered by sand dunes; much of the rest is bare rock plateaus, gravel plains and mountains. Its highest peak
is Emi Koussi, an extinct volcano in the Tibesti Mountains of Chad, which rises to 3,415 metres. Daytime
temperatures in summer often pass 40 degrees Celsius, but nights can be cold because dry air holds little
heat. The desert has not always been dry: until roughly five thousand years ago much of it was green, with
lakes, grasslands and animals such as hippopotamuses.""", [
        A("How large is the Sahara?", "about nine million square kilometres"),
        A("What is the highest peak in the Sahara?", "Emi Koussi"),
        A("In which country is Emi Koussi?", "Chad"),
        A("How much of the Sahara is covered by sand dunes?", "about a quarter"),
        N("What is the largest cold desert in the world?", plausible="The Sahara"),
        N("What is the lowest temperature ever recorded in the Sahara?"),
    ]),
    P("Esperanto", """
Esperanto is a constructed language created by Ludwik Lejzer Zamenhof, an eye doctor who grew up in
Białystok, a town where Polish, Yiddish, Russian and German speakers lived side by side. Zamenhof believed
that misunderstandings between language communities fed hostility, and he hoped that a neutral, easy second
language could help. In 1887 he published a short book describing it under the pen name Doktoro Esperanto,
meaning one who hopes, and the language took its name from that pseudonym. Its grammar is deliberately
regular: nouns end in -o, adjectives in -a, and verbs have no irregular forms. The first World Esperanto
Congress was held in Boulogne-sur-Mer, France, in 1905.""", [
        A("Who created Esperanto?", "Ludwik Lejzer Zamenhof"),
        A("What does Doktoro Esperanto mean?", "one who hopes"),
        A("In what year did Zamenhof publish his book about the language?", "1887"),
        A("Where was the first World Esperanto Congress held?", "Boulogne-sur-Mer"),
        N("How many people speak Esperanto today?"),
    ]),
    P("Coffee", """
A popular legend says that coffee was discovered in the highlands of Ethiopia by a goatherd named Kaldi, who
noticed that his goats became lively after eating the red berries of a certain shrub. The story was first
written down centuries after the events it describes, so historians treat it with caution. The earliest
reliable evidence of coffee drinking comes from the fifteenth century, in Sufi monasteries in Yemen, where
monks drank it to stay awake during night prayers. Much of the coffee traded in the following centuries was
shipped from the Yemeni port of Mocha, whose name is still used for coffee drinks today. Coffee houses spread
to Cairo and Istanbul and later to European cities such as Venice and London.""", [
        A("What was the goatherd in the coffee legend called?", "Kaldi"),
        A("Where does the earliest reliable evidence of coffee drinking come from?", "Sufi monasteries in Yemen"),
        A("From which port was much of the coffee trade shipped?", "Mocha"),
        N("In what year did the first coffee house open in London?"),
        N("Who first roasted coffee beans?", plausible="Kaldi"),
    ]),
    P("The Ellery Cup", """
The Ellery Cup is a rowing race held each spring on the River Tane between the crews of two rival colleges,
Ashcombe and St Brigid's. The course runs for 5.4 kilometres against the current, from the old mill at
Fenwick Lock to the footbridge below the cathedral. Each boat carries eight rowers and a coxswain, who steers
and calls the rhythm of the strokes. The first race took place in 1887 and was won by Ashcombe by two
lengths. Since then Ashcombe has won 71 times and St Brigid's 64 times, with one dead heat in 1923. The
record time of 16 minutes 12 seconds was set by a St Brigid's crew in 2009.""", [
        A("On which river is the Ellery Cup rowed?", "River Tane"),
        A("How long is the Ellery Cup course?", "5.4 kilometres"),
        A("Which college won the first race?", ("Ashcombe", 1)),
        A("What is the record time for the course?", "16 minutes 12 seconds"),
        N("Which college won the race in 1923?", plausible=("St Brigid's", 0)),
        N("Who was the coxswain of the record-setting crew?"),
    ]),
    P("BERT", """
BERT, short for Bidirectional Encoder Representations from Transformers, is a language model introduced by
researchers at Google in 2018. Unlike earlier models that read text only from left to right, BERT is
pre-trained to use the context on both sides of a word at once. During pre-training, 15 percent of the input
tokens are selected for prediction, and the model must recover them from the surrounding words; it also
learns to tell whether two sentences follow each other. The smaller published version, BERT-base, has 12
layers and about 110 million parameters, while BERT-large has 24 layers and about 340 million. For a task
such as question answering, only a small output layer is added and the whole network is fine-tuned.""", [
        A("Which company introduced BERT?", "Google"),
        A("What share of input tokens is selected for prediction during pre-training?", "15 percent"),
        A("How many layers does BERT-base have?", "12"),
        A("How many parameters does BERT-large have?", "about 340 million", "340 million"),
        N("How many attention heads does BERT-base have?", plausible="12"),
        N("How long did it take to pre-train BERT-large?"),
    ]),
]


# ---- SST-2 style classification sample: (sentence, label) with 1 = positive, 0 = negative ----------
# Lower case with punctuation split off, like the GLUE release of SST-2.
SST2 = [
    ("a warm , funny film that never forgets to be kind to its characters .", 1),
    ("the plot wanders off somewhere in the second hour and never comes back .", 0),
    ("the two leads have an easy chemistry that carries every scene .", 1),
    ("a dull , overlong exercise in style with nothing underneath .", 0),
    ("beautifully shot and quietly moving .", 1),
    ("every joke lands with a thud .", 0),
    ("the director keeps the tension tight from the first frame to the last .", 1),
    ("i checked my watch more often than the hero checked his gun .", 0),
    ("a small story told with great care and a big heart .", 1),
    ("the dialogue sounds as if it was written by a committee of robots .", 0),
    ("it 's the rare sequel that is better than the original .", 1),
    ("flat characters , muddy sound and a twist you can see coming for miles .", 0),
    ("the score alone is worth the price of a ticket .", 1),
    ("a lazy remake that adds nothing but noise .", 0),
    ("smart , sharp and surprisingly tender .", 1),
    ("the actors seem as bored as the audience .", 0),
    ("a joyful celebration of friendship that left the whole theatre smiling .", 1),
    ("too long , too loud and too pleased with itself .", 0),
    ("her performance is a quiet marvel .", 1),
    ("the film mistakes cruelty for wit .", 0),
    ("an inventive animated adventure that children and parents will both enjoy .", 1),
    ("the special effects cannot hide a script with no ideas .", 0),
    ("a gripping documentary that makes a complicated subject clear .", 1),
    ("it never decides whether it wants to be a comedy or a thriller , and fails at both .", 0),
    ("funny in the right places and sad in the right places .", 1),
    ("a tedious slog through clichés we have seen a hundred times .", 0),
    ("the final scene is one of the most satisfying endings in years .", 1),
    ("even the talented cast cannot rescue this mess .", 0),
    ("a confident debut from a director to watch .", 1),
    ("the story is so thin that a gust of wind would blow it away .", 0),
    ("rich in detail and full of life .", 1),
    ("a cynical cash grab dressed up as a family film .", 0),
    ("the kind of film that stays with you for days .", 1),
    ("the editing is so choppy that the action scenes make no sense .", 0),
    ("a clever mystery that plays fair with its audience .", 1),
    ("its message is delivered with all the subtlety of a hammer .", 0),
    ("the cast is uniformly excellent .", 1),
    ("i have rarely been so relieved to see the end credits .", 0),
    ("a touching portrait of a family learning to forgive .", 1),
    ("the characters make one stupid decision after another .", 0),
    ("wonderfully weird and never boring .", 1),
    ("a muddled , joyless slog .", 0),
    ("it earns every one of its tears .", 1),
    ("the humour is stale and the romance is lifeless .", 0),
    ("a thrilling ride from start to finish .", 1),
    ("the villain is more silly than scary .", 0),
    ("a gentle comedy with real warmth and wit .", 1),
    ("pretentious , confusing and far too proud of its own cleverness .", 0),
    ("the best ensemble cast of the year .", 1),
    ("a forgettable film that wastes a fine premise .", 0),
    ("hugely entertaining and smarter than it looks .", 1),
    ("nothing happens , and it happens very slowly .", 0),
    ("a moving , honest film about growing old .", 1),
    ("the jokes are recycled from better films .", 0),
    ("the photography is breathtaking and the story matches it .", 1),
    ("an ugly , mean-spirited film with nothing to say .", 0),
    ("it 's a delight from beginning to end .", 1),
    ("the songs are forgettable and the dancing is worse .", 0),
    ("a brave and generous film .", 1),
    ("by the halfway point i had stopped caring what happened to anyone .", 0),
]


# ---- Example picker of the inspectors --------------------------------------------------------------
# Each: title, question, passage, answerable, and answer (the expected span; "" when unanswerable).
LONG_PASSAGE = " ".join("""
For most of history a lighthouse was simply a fire. The earliest known examples were open fires of wood or
coal burned on hilltops or on towers near harbour entrances, so that ships approaching at night could judge
where the channel lay. The most famous tower of the ancient world stood on the island of Pharos at
Alexandria; it was so well known that the word for lighthouse in several European languages still comes
from its name. A fire, however, wastes most of its light. It shines in every direction, including up into
the sky and down onto the rocks, and smoke and soot dim it further. Keepers spent their nights hauling fuel
up narrow stairs and trimming flames in all weathers, and on a wet night a coal fire could almost vanish.
The first great improvement came in the eighteenth century, when candles and then oil lamps with hollow wicks
replaced open fires. Oil lamps burned brighter and more steadily, and by placing a polished metal mirror
behind the flame, engineers could send more of the light out to sea. Several lamps, each with its own curved
reflector, were often mounted together on a frame. Even so, much of the light was still lost, and the
mirrors needed constant polishing because smoke tarnished them. For fuel, keepers burned whatever oil was
cheap and available: vegetable oils, fish oil and, for many years, oil taken from whales. Building the towers
was a struggle of its own. On the Eddystone rocks off Plymouth, where two earlier towers had been lost, the
engineer John Smeaton finished a stone tower in 1759 whose blocks were dovetailed into one another like the
pieces of a puzzle, so that the waves could not prise them apart, and his method was copied for a century. The decisive change
came in 1822, when the French physicist Augustin Fresnel presented a new kind of lens. Instead of one thick
curved piece of glass, which would have been enormously heavy, Fresnel built his lens from concentric rings
of glass prisms mounted in a brass frame. The central rings bent the light into a flat beam, and the outer
prisms caught light that would otherwise escape above and below and turned it toward the horizon as well. A
single lamp inside such a lens could be seen more than twenty miles away. Lenses were made in several sizes,
called orders, from the huge first-order lenses used on dangerous coasts to small sixth-order lenses for
harbours and rivers. Rotating the lens, or placing panels in front of it, produced flashes, and each
lighthouse was given its own pattern of flashes so that sailors could tell one light from another. In the
second half of the nineteenth century whale oil became expensive, and lighthouse services turned to lard oil
and then to kerosene, a fuel refined from petroleum that burned cleanly and cost much less. Electric lamps
began to appear in the largest lighthouses toward the end of that century, and during the twentieth century
almost every light was electrified and then automated. Today most lighthouses have no resident keeper at
all: their lamps are switched on by light sensors at dusk, checked remotely, and many of the old towers are
now museums.""".split())

PROBE_EXAMPLES = [
    {"title": "Ada Lovelace (the classic)", "question": "Where was Ada born?",
     "passage": "Ada Lovelace was born in London in 1815.", "answerable": True, "answer": "London"},
    {"title": "Ada Lovelace: a year", "question": "In what year was Ada Lovelace born?",
     "passage": "Ada Lovelace was born in London in 1815. She is remembered for her notes on Charles "
                "Babbage's Analytical Engine, which include a method for computing Bernoulli numbers.",
     "answerable": True, "answer": "1815"},
    {"title": "BERT: a question the passage cannot answer", "question": "How many layers does BERT have?",
     "passage": "BERT reads a question and a passage together as one sequence, so every word can attend to "
                "every other word in all layers. For question answering, a small output layer scores each "
                "passage token as the possible start or end of the answer.",
     "answerable": False, "answer": ""},
    {"title": "Lighthouses (long passage, several windows)",
     "question": "What fuel replaced lard oil in lighthouse lamps?",
     "passage": LONG_PASSAGE, "answerable": True, "answer": "kerosene"},
    {"title": "Unicode: accents and a CJK name", "question": "Where was the studio's first exhibition abroad?",
     "passage": "In 1998 the potter 林愛子 (Hayashi Aiko) opened a small studio in Kyōto, where she fired "
                "celadon bowls in a wood kiln. Her first exhibition abroad, in 2004, was at the Galerie "
                "Sévigné in Montréal, and a café in Zürich later commissioned a set of 200 cups from her.",
     "answerable": True, "answer": "Galerie Sévigné in Montréal"},
    {"title": "Brennmoor: an unanswerable date", "question": "In what year did the brick works open?",
     "passage": PASSAGES[14]["context"], "answerable": False, "answer": ""},
    {"title": "Two names, one answer", "question": "Who painted the chapel ceiling?",
     "passage": "The chapel was designed by the architect Marco Ravel in 1702, but its ceiling was painted "
                "twenty years later by Lucia Ferrante, who also gilded the altar.",
     "answerable": True, "answer": "Lucia Ferrante"},
    {"title": "A number in context", "question": "How tall is the tower?",
     "passage": "The radio tower at Kessing was finished in 1964. It is 248 metres tall and can be seen from "
                "three counties on a clear day.",
     "answerable": True, "answer": "248 metres"},
]


# ---- Building ---------------------------------------------------------------------------------------
def question_id(title: str, question: str) -> str:
    """24 hex digits: sha1(title NUL question)[:24]."""
    return hashlib.sha1(f"{title}\x00{question}".encode("utf-8")).hexdigest()[:24]


def find_span(context: str, answer, where: str) -> dict:
    """{"text", "answer_start"} for `answer` (str or (str, occurrence)); ValueError names `where`."""
    text, occurrence = (answer, None) if isinstance(answer, str) else answer
    starts, i = [], context.find(text)
    while i != -1:
        starts.append(i)
        i = context.find(text, i + 1)
    if not starts:
        raise ValueError(f"{where}: answer {text!r} does not occur in the passage")
    if occurrence is None:
        if len(starts) > 1:
            raise ValueError(f"{where}: answer {text!r} occurs {len(starts)} times at {starts}; "
                             "give (text, occurrence) to say which one")
        occurrence = 0
    if occurrence >= len(starts):
        raise ValueError(f"{where}: answer {text!r} has no occurrence {occurrence} (found {len(starts)})")
    return {"text": text, "answer_start": starts[occurrence]}


def build_article(passage: dict) -> dict:
    context, title = passage["context"], passage["title"]
    qas = []
    for q in passage["qas"]:
        where = f"passage {title!r}, question {q['question']!r}"
        record = {"question": q["question"], "id": question_id(title, q["question"])}
        if q["answers"]:
            record["answers"] = [find_span(context, a, where) for a in q["answers"]]
            record["is_impossible"] = False
        else:
            record["answers"] = []
            record["is_impossible"] = True
            if q.get("plausible"):
                record["plausible_answers"] = [find_span(context, q["plausible"], where + " (plausible)")]
        qas.append(record)
    return {"title": title, "paragraphs": [{"context": context, "qas": qas}]}


def build_squad(indices) -> dict:
    return {"version": "v2.0", "data": [build_article(PASSAGES[i]) for i in indices]}


def answerable_only(squad: dict) -> dict:
    """The same articles as SQuAD v1.1: unanswerable questions left out (no is_impossible flags)."""
    articles = []
    for article in squad["data"]:
        paragraphs = []
        for para in article["paragraphs"]:
            qas = [{"question": q["question"], "id": q["id"], "answers": q["answers"]}
                   for q in para["qas"] if q["answers"]]
            if qas:
                paragraphs.append({"context": para["context"], "qas": qas})
        if paragraphs:
            articles.append({"title": article["title"], "paragraphs": paragraphs})
    return {"version": "1.1", "data": articles}


def squad_outputs() -> dict[str, dict]:
    """File name -> SQuAD JSON object: v2.0 for the whole set and its train / dev split, v1.1 (answerable
    questions only) for the split."""
    all_idx = range(len(PASSAGES))
    dev = [i for i in all_idx if i % DEV_EVERY == DEV_EVERY - 1]
    train = [i for i in all_idx if i % DEV_EVERY != DEV_EVERY - 1]
    return {
        "squad_v2_sample.json": build_squad(all_idx),
        "squad_v2_sample_train.json": build_squad(train),
        "squad_v2_sample_dev.json": build_squad(dev),
        "squad_v1_sample_train.json": answerable_only(build_squad(train)),
        "squad_v1_sample_dev.json": answerable_only(build_squad(dev)),
    }


def sst2_text() -> str:
    for sentence, label in SST2:
        if "\t" in sentence or "\n" in sentence or label not in (0, 1):
            raise ValueError(f"SST2 entry {sentence!r}: tab/newline in the sentence or label not 0/1")
    return "sentence\tlabel\n" + "".join(f"{s}\t{label}\n" for s, label in SST2)


def _json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


def outputs() -> dict[Path, str]:
    """Every file this script writes -> its exact text."""
    files = {SAMPLES_DIR / name: _json(obj) for name, obj in squad_outputs().items()}
    files[SAMPLES_DIR / "sst2_sample.tsv"] = sst2_text()
    files[EXAMPLES_DIR / "probe_examples.json"] = _json(PROBE_EXAMPLES)
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files that are out of date")
    args = parser.parse_args(argv)
    stale = 0
    for path, text in outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale += 1
        if args.check:
            print(f"out of date: {path.relative_to(REPO_ROOT)}")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO_ROOT)}")
    n_q = sum(len(p["qas"]) for p in PASSAGES)
    n_imp = sum(1 for p in PASSAGES for q in p["qas"] if not q["answers"])
    print(f"{len(PASSAGES)} passages, {n_q} questions, {n_imp} unanswerable ({100 * n_imp / n_q:.0f}%), "
          f"{len(SST2)} SST-2 sentences, {len(PROBE_EXAMPLES)} probe examples")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
