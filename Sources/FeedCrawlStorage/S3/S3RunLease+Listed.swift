extension S3RunLease {
    /// The lock for stores that ignore conditional writes (see `S3RunLease`, `.listed`): this
    /// run's own lock object `key` in `folder`, written `waiting`, then `held` once no other
    /// live one is listed; a live `held` one refuses this run at once, live `waiting` ones
    /// (runs starting at the same moment) make it step back and try again, twice.
    static func acquireListed(
        client: S3Client, key: String, folder: String, holder: String, body: [UInt8], rule: ObjectLease,
        log: @Sendable (String, Bool) -> Void
    ) async throws(Failure) -> S3RunLease {
        // A run's lock object says `waiting` until it has seen no other live one, then `held`.
        let waiting = body + Array("waiting\n".utf8)
        let held = body + Array("held\n".utf8)
        let tries = 3
        for round in 1...tries {
            _ = try await storeFailure("PUT", key) {
                try await client.put(key: key, bytes: waiting, contentType: "text/plain")
            }
            var holding: (holder: String, expiresIn: Int64)?
            var contending: (holder: String, expiresIn: Int64)?
            let others = try await storeFailure("LIST", folder) { () async throws -> [S3ListedObject] in
                var found: [S3ListedObject] = []
                try await client.listAll(prefix: folder) { if $0.key != key { found.append($0) } }
                return found
            }
            for other in others {
                // A HEAD gives the store's clock and the object's age on it.
                guard let info = try await storeFailure("HEAD", other.key, { try await client.head(key: other.key) }) else {
                    continue  // removed meanwhile: its run released it
                }
                switch rule.step(seen(info)) {
                case .create:
                    continue
                case .held(let expiresIn):
                    let text = await currentBody(client: client, key: other.key)
                    let who = (firstLine(text), expiresIn)
                    if text.hasSuffix("\nwaiting\n") { contending = contending ?? who } else { holding = holding ?? who }
                case .takeOver(_, let idle):
                    let previous = firstLine(await currentBody(client: client, key: other.key))
                    try await storeFailure("DELETE", other.key) { try await client.delete(key: other.key) }
                    log("removed the run lock of a run that stopped renewing it \(idle) s ago (\(previous.isEmpty ? "unnamed" : previous))", false)
                }
            }
            if holding == nil, contending == nil {
                let etag = try await storeFailure("PUT", key) {
                    try await client.put(key: key, bytes: held, contentType: "text/plain")
                }
                return S3RunLease(client: client, key: key, kind: .listed, holder: holder, body: held, rule: rule, etag: etag)
            }
            // Another run: step back. One that holds the lock refuses this run at once; runs
            // that wrote theirs at the same moment all step back, and tries spaced at random
            // let one of them go on.
            try await storeFailure("DELETE", key) { try await client.delete(key: key) }
            if let holding { throw .held(holder: holding.holder, expiresIn: holding.expiresIn) }
            if round == tries, let contending { throw .held(holder: contending.holder, expiresIn: contending.expiresIn) }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 200...1500)))
        }
        throw .held(holder: "", expiresIn: Int64(rule.ttl))
    }
}
