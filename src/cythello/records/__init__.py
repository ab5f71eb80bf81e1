"""Game records and pictures: OBF positions, GGF games, SVG boards."""
