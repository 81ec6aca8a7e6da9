return "quirk"
