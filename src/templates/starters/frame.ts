/**
 * The frame every starter shares: fonts and colours in `mj-attributes`, a header with the sender's
 * name and a footer. Marketing starters put the unsubscribe link in the footer; transactional ones
 * say why the mail was sent instead.
 */
export function frame(parts: { preview: string; body: string; footer: string }): string {
  return `<mjml>
  <mj-head>
    <mj-preview>${parts.preview}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, 'Noto Sans', sans-serif" />
      <mj-text font-size="16px" line-height="1.6" color="#1f2933" />
      <mj-button background-color="#1c7ed6" color="#ffffff" font-size="16px" font-weight="600" border-radius="6px" inner-padding="12px 24px" />
      <mj-section padding="0px" />
    </mj-attributes>
    <mj-style>
      a { color: #1c7ed6; }
    </mj-style>
  </mj-head>
  <mj-body background-color="#f1f3f5" width="600px">
    <mj-section padding="24px 0px 8px">
      <mj-column>
        <mj-text align="center" font-size="20px" font-weight="700" color="#1c7ed6">{{ data.company ?? "Acme" }}</mj-text>
      </mj-column>
    </mj-section>
${parts.body}
    <mj-section padding="16px 0px 32px">
      <mj-column>
        <mj-text align="center" font-size="12px" line-height="1.5" color="#6b7280">${parts.footer}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>
`;
}

/** A white card section holding one column of content. */
export function card(content: string): string {
  return `    <mj-section background-color="#ffffff" border-radius="8px" padding="24px 16px">
      <mj-column>
${content}
      </mj-column>
    </mj-section>`;
}

export const UNSUBSCRIBE_FOOTER =
  'You receive this because you subscribed to news from {{ data.company ?? "Acme" }}.<br />' +
  '<a href="{{ manageUrl }}" style="color:#6b7280">Email preferences</a> · <a href="{{ unsubscribeUrl }}" style="color:#6b7280">Unsubscribe</a>';

export const ACCOUNT_FOOTER = 'You receive this email because of activity on your {{ data.company ?? "Acme" }} account.';
