return "in the folder"
