// DemoFeed: a loopback HTTP server serving a synthetic Pixabay-style API, a GraphQL launches API and images.
