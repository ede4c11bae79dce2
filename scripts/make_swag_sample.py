"""Write resources/samples/swag_sample_train.csv: original multiple-choice items in the SWAG CSV format.

Every sentence here was written for this project (no SWAG text). Each item is a short scene (sent1), the
first word of the next sentence (sent2), the ending that follows from the scene, and three endings taken
from other scenes (plausible English, wrong for this scene). The right ending's position is drawn at random.
Usage: python scripts/make_swag_sample.py [--n 300] [--seed 0] [--out resources/samples/swag_sample_train.csv]
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

PEOPLE = [("A woman", "She"), ("A man", "He"), ("The girl", "She"), ("The boy", "He"), ("An old man", "He"),
          ("A young woman", "She"), ("The chef", "She"), ("The teacher", "He"), ("A runner", "She"),
          ("The farmer", "He"), ("A student", "She"), ("The driver", "He")]

# (scene after the person, what follows, filed under a topic so distractors come from other topics)
SCENES = [
    ("cracks two eggs into a bowl.", "whisks them with a fork until they are smooth.", "kitchen"),
    ("pours batter into a hot pan.", "flips the pancake when bubbles appear on top.", "kitchen"),
    ("chops an onion on a wooden board.", "wipes a tear away and keeps slicing.", "kitchen"),
    ("fills a kettle at the sink.", "sets it on the stove and waits for it to boil.", "kitchen"),
    ("ties the laces of a pair of running shoes.", "jogs out of the door and down the street.", "sport"),
    ("stands on the diving board above the pool.", "bounces twice and dives into the water.", "sport"),
    ("kicks the ball toward the goal.", "watches it slip past the keeper into the net.", "sport"),
    ("picks up a tennis racket and a ball.", "tosses the ball up and serves it over the net.", "sport"),
    ("climbs onto a bicycle at the top of the hill.", "coasts down the slope with the wind in the face.", "sport"),
    ("kneels beside a row of tomato plants.", "pulls the weeds out from between the stems.", "garden"),
    ("drags a hose across the lawn.", "sprays water over the dry flower beds.", "garden"),
    ("digs a hole at the edge of the yard.", "lowers a small tree into it and pats down the soil.", "garden"),
    ("rakes a pile of brown leaves.", "stuffs the leaves into a large paper bag.", "garden"),
    ("opens the hood of the car.", "checks the oil with a long metal stick.", "car"),
    ("pulls into a gas station.", "unscrews the cap and fills the tank.", "car"),
    ("sees that a tire is flat.", "jacks up the car and loosens the wheel nuts.", "car"),
    ("sits down at the piano.", "places both hands on the keys and plays a slow tune.", "music"),
    ("tunes the strings of a guitar.", "strums a chord and nods at the sound.", "music"),
    ("lifts a violin to the chin.", "draws the bow across the strings.", "music"),
    ("steps up to the microphone on stage.", "clears the throat and begins to sing.", "music"),
    ("spreads a sheet of paper on the desk.", "sketches the outline of a house with a pencil.", "art"),
    ("dips a brush into blue paint.", "paints a wide stripe of sky across the canvas.", "art"),
    ("presses a lump of clay onto the wheel.", "shapes it into a bowl as the wheel spins.", "art"),
    ("holds a wrapped box with a red bow.", "tears off the paper and lifts the lid.", "home"),
    ("hears the doorbell ring.", "walks to the front door and opens it.", "home"),
    ("carries a basket of wet laundry outside.", "hangs the shirts on the line with pegs.", "home"),
    ("pushes a vacuum cleaner across the rug.", "moves the chair to reach the dust beneath it.", "home"),
    ("sweeps broken glass into a dustpan.", "empties the dustpan into the bin.", "home"),
    ("reaches the end of a long line at the airport.", "hands a passport to the officer at the desk.", "travel"),
    ("waits on the platform as the train arrives.", "steps aboard and looks for an empty seat.", "travel"),
    ("unfolds a paper map on the hood of the car.", "traces the route with a finger.", "travel"),
    ("puts a leash on the dog.", "walks the dog around the block.", "animals"),
    ("scatters grain on the ground of the barn.", "watches the hens rush over to peck at it.", "animals"),
    ("opens a can of cat food.", "spoons it into a bowl as the cat meows.", "animals"),
    ("brushes the coat of a brown horse.", "lifts the saddle onto the horse's back.", "animals"),
    ("looks up at dark clouds over the field.", "opens an umbrella as the rain begins.", "weather"),
    ("scrapes ice off the windshield.", "climbs in and turns on the heater.", "weather"),
    ("wipes sweat from the forehead in the heat.", "drinks a whole bottle of cold water.", "weather"),
    ("opens a book to the first page.", "reads the opening line aloud.", "study"),
    ("writes a question on the whiteboard.", "turns to the class and waits for an answer.", "study"),
]


def make_items(n: int, seed: int) -> list[dict]:
    """n items; each scene's right ending plus three endings from scenes of other topics."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        scene, gold, topic = SCENES[i % len(SCENES)]
        subject, pronoun = PEOPLE[rng.randrange(len(PEOPLE))]
        others = [e for _, e, t in SCENES if t != topic]
        endings = rng.sample(others, 3)
        label = rng.randrange(4)
        endings.insert(label, gold)
        sent1 = f"{subject} {scene}"
        items.append({"": i, "video-id": f"sample-{i:04d}", "fold-ind": i, "startphrase": f"{sent1} {pronoun}",
                      "sent1": sent1, "sent2": pronoun, "gold-source": "gold",
                      **{f"ending{k}": endings[k] for k in range(4)}, "label": label})
    return items


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=320)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "resources" / "samples"
                                         / "swag_sample_train.csv"))
    args = ap.parse_args(argv)
    items = make_items(args.n, args.seed)
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(items[0]))
        writer.writeheader()
        writer.writerows(items)
    print(f"wrote {len(items)} items to {args.out}")


if __name__ == "__main__":
    main()
