print("feedcrawl")
