import { Alert, Card } from 'react-bootstrap';
import { Trans, useTranslation } from 'react-i18next';
import { Skeleton } from '../../../components/skeleton.tsx';
import { useProfileContacts } from '../api/contacts.ts';

/** Behaviour §2: who to call about the robots, phone and email as links a phone or mail client opens. */
export const ContactList = () => {
  const { t } = useTranslation();
  const contacts = useProfileContacts();
  return (
    <section aria-labelledby="profile-contacts-heading">
      <h2 id="profile-contacts-heading" className="h5 mb-3">
        {t('profileInfo.contacts')}
      </h2>
      {contacts.isPending ? (
        <>
          <span className="visually-hidden" role="status">
            {t('common.loading')}
          </span>
          <Skeleton lines={4} />
        </>
      ) : contacts.isError ? (
        <Alert variant="danger">{t('profileInfo.contactError')}</Alert>
      ) : contacts.data.length === 0 ? (
        <p className="text-body-secondary">{t('profileInfo.noContacts')}</p>
      ) : (
        <ul className="list-unstyled row g-3 mb-0">
          {contacts.data.map((contact) => (
            <li key={contact.id} className="col-12 col-md-6">
              <Card className="h-100">
                <Card.Body>
                  <h3 className="h6 mb-2">{contact.title}</h3>
                  <p className="mb-0 text-break">
                    <Trans
                      i18nKey="profileInfo.contactBlock"
                      values={{ name: contact.name, phone: contact.phone, email: contact.email }}
                      components={{
                        phone: <a href={`tel:${contact.phone.replace(/[^\d+]/g, '')}`} aria-label={`${t('profileInfo.phone')} ${contact.phone}`} />,
                        email: <a href={`mailto:${contact.email}`} aria-label={`${t('profileInfo.email')} ${contact.email}`} />,
                      }}
                    />
                  </p>
                </Card.Body>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
};
