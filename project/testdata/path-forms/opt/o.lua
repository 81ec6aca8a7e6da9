return "opt"
