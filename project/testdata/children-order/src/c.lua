return "c"
