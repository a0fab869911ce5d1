"""Writes the catalog benchmarks' synthetic library: N untagged tiny WAV files.

Usage: python3 bench/catalog-library.py DIR N

One tiny WAV (0.1 s of a tone, 8 kHz mono, 1.6 KB) copied to N paths
`Artist/Album/NN Title.wav`, so artist, album and title come from the path
(the scan's convention for untagged files) and each file is still decoded
and analysed by `svc catalog scan`. Names are drawn from word lists with a
fixed seed: 2,000 artists, 10 tracks an album. `DIR/.complete` marks a
finished library. Used by bench/catalog.sh and bench/catalog-app.sh.
"""
import math, os, random, struct, sys, wave
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(8)
words = ("night dawn blue river glass ember static velvet hollow silver paper echo lantern copper "
         "meadow signal orbit cinder harbor willow neon marble thunder quiet golden feather tide "
         "mirror canyon atlas north winter summer violet amber crimson shadow light fire stone "
         "ocean desert forest city garden engine motor radio cloud rain snow storm star moon sun").split()
def name(k):
    return " ".join(rng.choice(words).capitalize() for _ in range(k))
os.makedirs(root, exist_ok=True)
template = os.path.join(root, ".template.wav")
with wave.open(template, "wb") as w:
    w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 8000))) for i in range(800)))
data = open(template, "rb").read()
artists = [f"{name(2)} {i}" for i in range(2000)]
made = 0
album = 0
while made < n:
    artist = artists[album % len(artists)]
    folder = os.path.join(root, artist, f"{name(2)} {album}")
    os.makedirs(folder, exist_ok=True)
    for track in range(1, 11):
        if made == n:
            break
        with open(os.path.join(folder, f"{track:02d} {name(3)}.wav"), "wb") as f:
            f.write(data)
        made += 1
    album += 1
os.remove(template)
open(os.path.join(root, ".complete"), "w").close()
