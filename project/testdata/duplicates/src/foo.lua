return "module"
