return "_x"
