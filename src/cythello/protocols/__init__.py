"""Engine protocols: cythello as an NBoard or GTP engine, and clients that drive other
engines as players."""
