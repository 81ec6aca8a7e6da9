return "bar"
