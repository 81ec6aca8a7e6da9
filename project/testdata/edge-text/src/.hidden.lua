return "dot"
