return "shared"
