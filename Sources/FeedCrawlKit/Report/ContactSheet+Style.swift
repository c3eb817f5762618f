extension ContactSheet {
    /// The inline style sheet: a responsive grid of fixed-height cells, status colours, a CSS-only
    /// "problems only" filter (on while the URL's fragment is `#problems`, also on the pages the
    /// sheet's links lead to), and `content-visibility` so long pages render quickly. Caption
    /// lines are cut at the tile's edge (ellipsis) but for the credit (`cr`) and the facts (`f`:
    /// author or site, size, dimensions), which wrap, and errors (`e`).
    static let style = """

    :root{color-scheme:light;--ok:#2e7d32;--fresh:#1565c0;--bad:#c62828;--rej:#ef6c00;--mute:#757575}
    *{box-sizing:border-box}
    body{margin:0;font:13px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f3f1;color:#222}
    header{background:#24292f;color:#eee;padding:12px 18px}
    header h1{margin:0 0 6px;font-size:18px}
    header p,header ul{margin:4px 0}
    header ul{padding-left:18px}
    header a{color:#9ecbff}
    nav p{margin:2px 0}
    nav a{margin-right:4px}
    .pg{margin:6px 0}
    .toc summary{cursor:pointer}
    .toc summary a{margin-right:0}
    .toc details p{margin:0 0 4px 16px}
    footer{padding:14px 0 0}
    .c{display:inline-block;padding:0 6px;border-radius:8px;background:#444;margin-right:2px}
    .c.st-downloaded{background:var(--ok)}.c.st-fresh,.c.st-revalidated{background:var(--fresh)}
    .c.st-failed{background:var(--bad)}.c.st-rejected{background:var(--rej)}
    main{padding:6px 18px 40px}
    h2{margin:18px 0 4px;font-size:17px;border-bottom:1px solid #ccc}
    h3{margin:12px 0 6px;font-size:14px;color:#444}
    small{color:#777;font-weight:normal}
    .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(168px,1fr));gap:8px;content-visibility:auto;contain-intrinsic-size:auto 600px}
    figure{margin:0;background:#fff;border:1px solid #ddd;border-top:3px solid var(--mute);border-radius:4px;overflow:hidden}
    figure.st-downloaded{border-top-color:var(--ok)}
    figure.st-fresh,figure.st-revalidated{border-top-color:var(--fresh)}
    figure.st-failed,figure.st-cancelled{border-top-color:var(--bad);background:#fff5f5}
    figure.st-rejected{border-top-color:var(--rej);background:#fff8f0}
    figure.old{opacity:.55}
    figure img{display:block;width:100%;height:128px;object-fit:contain;background:#e8e8e6}
    .ph{height:128px;display:flex;align-items:center;justify-content:center;background:#eee;color:#888;font-size:15px}
    figcaption{padding:4px 6px 6px}
    figcaption p{margin:1px 0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
    .t{font-weight:600}
    .st{font-size:11px;text-transform:uppercase;letter-spacing:.03em;color:#555}
    .id{color:#999;font-size:11px}
    .cr,.f{white-space:normal;overflow-wrap:anywhere}
    .e{color:var(--bad);white-space:normal!important}
    header .e{color:#ff9e9e}
    header ul.w{margin:2px 0 4px;color:#ffcc80}
    .u{color:#888;font-size:11px}
    .pt{position:absolute;top:0}
    .pfo,.np{display:none}
    .pt:target~header .pfl,.pt:target~header .na,.pt:target~main .na{display:none}
    .pt:target~header .pfo,.pt:target~header .np,.pt:target~main .np{display:inline}
    .pt:target~main figure.ok{display:none}
    .pt:target~main section:not(:has(figure:not(.ok))){display:none}
    .empty{color:#777}

    """
}
