print("scripted")
